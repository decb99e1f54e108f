/**
 * The index holds each section's passage as the JSON it was stored as, deflated into shared
 * chunks, and parses it when a reply, an excerpt or the decision reads it: what is read is what was
 * stored, parsed once while it is read often, and a section stored before the passage model is
 * read from its Markdown.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import type { Passage } from '../../../src/server/knowledge/index.js';
import { PassagePacker, SectionStore, unpackPassage } from '../../../src/server/knowledge/store/sections.js';
import { migrations } from '../../../src/server/schema.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { openSql } from '../../../src/server/store/sql.js';

const PAGE = '# Billing\n\nInvoices are sent by [email](https://x.test/mail). Each one lists the tax.\n\n## Refunds\n\n1. Open **Billing**.\n2. Click **Refund**.\n';

describe('the passages of an indexed knowledge base', () => {
  it('are read as stored, parsed once while read often; a section stored before the passage model is read from its Markdown', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'indexed-passages-'));
    writeFileSync(join(folder, 'billing.md'), PAGE);
    const sql = await openSql({ dataDir: ':memory:' });
    await migrate(sql, migrations);
    try {
      await createAnswerEngine({ sql, llm: null, embedder: null }).ingest('acme', [folder]);
      const stored = await sql.all<{ id: number; passage: string }>('SELECT id, passage FROM kb_sections ORDER BY ord');
      const rows = await new SectionStore(sql).sections('acme');
      expect(rows.map((r) => r.section.passage)).toEqual(stored.map((s) => JSON.parse(s.passage) as Passage));
      const refunds = rows.find((r) => r.section.title === 'Refunds')!.section;
      expect(refunds.passage.blocks.map((b) => b.kind)).toEqual(['steps']);
      expect(refunds.passage).toBe(refunds.passage);
      // As stored before the model: no passage; read from the section's Markdown when loaded.
      await sql.run('UPDATE kb_sections SET passage = NULL');
      const legacy = await new SectionStore(sql).sections('acme');
      expect(legacy.map((r) => r.section.passage)).toEqual(rows.map((r) => r.section.passage));
    } finally {
      await sql.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('pack each passage whole across chunks, and one larger than a chunk on its own', () => {
    const packer = new PassagePacker();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () => `w${Math.floor(random() * 1e6).toString(36)}`;
    const passage = (words: number): Passage => {
      const text = Array.from({ length: words }, word).join(' ');
      return { lang: 'en', blocks: [{ kind: 'paragraph', text, plain: text, sentences: [text], terms: text.split(' ') }] };
    };
    // Random words deflate to about half: 4,000 passages of a few kilobytes fill several chunks of 1 MiB.
    const passages = [...Array.from({ length: 4_000 }, (_, i) => passage(50 + (i % 400))), passage(400_000), passage(3)];
    const packed = passages.map((p) => packer.pack(JSON.stringify(p)));
    expect(new Set(packed.map((p) => p.buffer)).size).toBeGreaterThan(3);
    expect(packed.at(-2)!.byteLength).toBeGreaterThan(1 << 20);
    expect(packed.map(unpackPassage)).toEqual(passages);
  });
});
