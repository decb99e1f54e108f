/** `kb ingest` over a knowledge base stored before the passage model: it parses the pages again and says so, once. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/server/store/sql.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Turns the data folder's knowledge base back into one stored before kb migration 4: no passage column, the migration not applied. */
async function asBeforePassages(dataDir: string): Promise<void> {
  const sql = openSqlite(dataDir);
  try {
    await sql.exec('ALTER TABLE kb_sections DROP COLUMN passage');
    await sql.run("DELETE FROM schema_migrations WHERE component = 'kb' AND version = 4");
  } finally {
    await sql.close();
  }
}

describe('kb ingest after an upgrade', () => {
  it('re-parses the sections of an older knowledge base into passages, says how many, and says nothing the next time', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-kb-reparse-'));
    dirs.push(dataDir);
    const docs = join(dataDir, 'docs');
    mkdirSync(docs);
    writeFileSync(join(docs, 'install.md'), '# Install\n\nRun the installer.\n\n## Windows\n\nUse the MSI.\n\n## macOS\n\nUse Homebrew.\n');
    writeFileSync(join(docs, 'billing.md'), '# Billing\n\nYou are charged monthly.\n');
    const env = { ...process.env, SUPPORT_CHAT_EMBEDDING_THREADS: '1' };

    const first = runCli(['kb', 'ingest', docs, '--org', 'acme'], dataDir, env);
    expect(first).toContain('2 added');
    expect(first).not.toContain('Re-parsed');

    await asBeforePassages(dataDir);
    const upgraded = runCli(['kb', 'ingest', docs, '--org', 'acme'], dataDir, env);
    expect(upgraded).toContain('0 added, 2 updated, 0 unchanged');
    expect(upgraded).toContain('Re-parsed 4 sections of an older knowledge base into passages (blocks and sentences).');

    const again = runCli(['kb', 'ingest', docs, '--org', 'acme'], dataDir, env);
    expect(again).toContain('0 updated, 2 unchanged');
    expect(again).not.toContain('Re-parsed');
  }, 180_000);
});
