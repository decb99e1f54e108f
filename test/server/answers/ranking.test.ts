import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnswerEngine } from '../../../src/server/answers/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('ranking', () => {
  it('reads a generic heading with the headings above it, and shows the section’s own title', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-rank-'));
    dirs.push(dir);
    const page = (name: string, title: string, sections: [string, string][]) =>
      writeFileSync(join(dir, `${name}.md`), `---\ntitle: ${title}\nurl: https://docs.example.com/${name}\n---\n\n${sections.map(([h, b]) => `## ${h}\n\n${b}\n`).join('\n')}`);
    page('exports', 'Data exports', [
      ['Overview', 'Exports of your data run every night and land in your bucket.'],
      ['Scheduling', 'Choose the hour the exports run.'],
      ['Examples', 'See the snippets below for a typical setup.'],
    ]);
    page('audit', 'Audit log', [
      ['Overview', 'Every change is recorded.'],
      ['Examples', 'Typical entries: a data export started, a data export finished, data exports listed.'],
    ]);
    const engine = createAnswerEngine({ db: new Database(':memory:'), llm: null });
    await engine.ingest('acme', [dir]);
    const hits = await engine.search('acme', 'data exports examples');
    expect(hits[0]!.section.url).toBe('https://docs.example.com/exports#examples');
    expect(hits[0]!.section.title).toBe('Examples');
  });
});
