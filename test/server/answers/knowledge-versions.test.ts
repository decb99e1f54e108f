import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import type { Sql } from '../../../src/server/store/sql.js';
import { openTestSql } from '../../helpers/database.js';

const dirs: string[] = [];
const open: Sql[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await Promise.all(open.splice(0).map((sql) => sql.close()));
});

/** A folder holding one Markdown page with one section. */
function folder(name: string, heading: string, body: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-kb-version-'));
  dirs.push(dir);
  writeFileSync(join(dir, `${name}.md`), `---\ntitle: ${name}\nurl: https://docs.example.com/${name}\n---\n\n## ${heading}\n\n${body}\n`);
  return dir;
}

/** The database with every statement counted. */
function counted(sql: Sql): { sql: Sql; statements: string[] } {
  const statements: string[] = [];
  const wrapped: Sql = {
    dialect: sql.dialect,
    changes: sql.changes,
    all: (text, params) => (statements.push(text), sql.all(text, params)),
    get: (text, params) => (statements.push(text), sql.get(text, params)),
    run: (text, params) => (statements.push(text), sql.run(text, params)),
    exec: (text) => (statements.push(text), sql.exec(text)),
    transaction: (work) => sql.transaction(work),
    close: () => sql.close(),
  };
  return { sql: wrapped, statements };
}

async function database(): Promise<Sql> {
  const sql = await openTestSql();
  open.push(sql);
  return sql;
}

describe('knowledge base versions', () => {
  it('rebuilds an organization’s index when another process changed its knowledge base', async () => {
    const sql = await database();
    // Two engines on one database stand for two processes: each keeps its own index.
    const asking = createAnswerEngine({ sql, llm: null });
    const writing = createAnswerEngine({ sql, llm: null });
    await writing.ingest('acme', [folder('exports', 'Nightly exports', 'Exports run every night.')]);
    expect((await asking.search('acme', 'nightly exports'))[0]?.section.url).toBe('https://docs.example.com/exports#nightly-exports');
    expect(await asking.search('acme', 'quarantine')).toEqual([]);

    await writing.ingest('acme', [folder('quarantine', 'Quarantined files', 'Infected uploads go to quarantine.')]);
    expect((await asking.search('acme', 'quarantine'))[0]?.section.url).toBe('https://docs.example.com/quarantine#quarantined-files');

    await writing.indexTicket('acme', { source: 'linear', externalId: 'LIN-7', title: 'Quota exceeded on import', body: 'The importer stops at the quota.', url: null });
    expect((await asking.search('acme', 'quota importer', { includeTickets: true }))[0]?.section.docKey).toBe('ticket:linear:LIN-7');
    await writing.forgetTicket('acme', 'linear', 'LIN-7');
    expect(await asking.search('acme', 'quota importer', { includeTickets: true })).toEqual([]);
  });

  it('keeps one copy of each section when two processes ingest the same folder at once', async () => {
    const sql = await database();
    const dir = folder('exports', 'Nightly exports', 'Exports run every night.');
    for (let i = 0; i < 30; i++) writeFileSync(join(dir, `page-${i}.md`), `# Page ${i}\n\n## First\n\nOne.\n\n## Second\n\nTwo.\n`);
    const [a, b] = [createAnswerEngine({ sql, llm: null }), createAnswerEngine({ sql, llm: null })];
    await a.ingest('alone', [dir]);
    await Promise.all([a.ingest('acme', [dir]), b.ingest('acme', [dir])]);
    expect(await a.stats('acme')).toEqual(await a.stats('alone'));
    expect(await a.stats('acme')).toMatchObject({ documents: 31, sections: 61 });
  });

  it('reads one version row per search and per answer while the knowledge base is unchanged, and no other organization’s', async () => {
    const { sql, statements } = counted(await database());
    const engine = createAnswerEngine({ sql, llm: null });
    await engine.ingest('acme', [folder('exports', 'Nightly exports', 'Exports run every night.')]);
    await engine.ingest('globex', [folder('billing', 'Invoices', 'Invoices are sent monthly.')]);
    await engine.search('acme', 'nightly exports');
    statements.length = 0;
    const hits = await engine.search('acme', 'exports every night');
    expect(hits[0]?.section.docKey).toMatch(/exports\.md$/);
    expect(statements).toEqual(['SELECT version FROM kb_versions WHERE org_id = ?']);
    statements.length = 0;
    const answer = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: 'When do exports run?', sources: [] }], signal: new AbortController().signal });
    expect(answer.sources.map((s) => s.url)).toEqual(['https://docs.example.com/exports#nightly-exports']);
    expect(statements).toEqual(['SELECT version FROM kb_versions WHERE org_id = ?']);

    // A change to another organization leaves this one's index as it is.
    await engine.ingest('globex', [folder('refunds', 'Refunds', 'Refunds take a week.')]);
    statements.length = 0;
    await engine.search('acme', 'nightly exports');
    expect(statements).toHaveLength(1);
  });
});
