/** Typos: a word the knowledge base does not know matches its words within the edits its length allows, in search and in the chat. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allowedEdits, editDistance, TypoIndex } from '../../../src/server/knowledge/ranking/typos.js';
import { searchDocs } from '../../../src/server/knowledge/search.js';
import { openTestEngine } from '../../helpers/answer-engine.js';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the typo index', () => {
  it('counts a swap of neighbouring letters as one edit, and stops past its limit', () => {
    expect(editDistance('exprot', 'export')).toBe(1);
    expect(editDistance('pasword', 'password')).toBe(1);
    expect(editDistance('conection', 'connections')).toBe(2);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });

  it('allows one edit up to seven letters and two from eight on', () => {
    expect([4, 7, 8, 12].map(allowedEdits)).toEqual([1, 1, 2, 2]);
    const index = new TypoIndex(['export', 'exports', 'report', 'password', 'connection', 'connect', 'configuration']);
    expect(index.near(['exprot']).map((n) => n.term)).toEqual(['export']);
    // A six-letter word is allowed one edit: "exprts" is "exports" (a letter dropped), not "export" (two).
    expect(index.near(['exprts']).map((n) => n.term)).toEqual(['exports']);
    expect(index.near(['conectoin']).map((n) => n.term)).toEqual(['connection']);
    expect(index.near(['configuraton'])).toEqual([{ term: 'configuration', edits: 1 }]);
    expect(index.near(['cnofgiuration'])).toEqual([{ term: 'configuration', edits: 2 }]);
    expect(index.near(['cnofgiuratoin'])).toEqual([]);
    expect(index.near(['abc'])).toEqual([]);
  });
});

describe('a typo in a question', () => {
  it('finds the page its word means, in search and in the chat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-typos-'));
    folders.push(dir);
    writeFileSync(join(dir, 'passphrase.md'), '# Sign-in passphrase\n\n## Where is my passphrase\n\nThere is no account passphrase to remember: each sign-in sends a one-time passphrase by email.\n');
    writeFileSync(join(dir, 'exports.md'), '# Exports\n\n## Exporting your data\n\nUse Settings → Data → Exportation to download everything as CSV.\n');
    writeFileSync(join(dir, 'forwarding.md'), '# Forwarding\n\n## Change the forwarding inbox\n\nOpen the dashboard and enter the new inbox that mail goes to.\n');
    const engine = await openTestEngine({ embedder: null });
    await engine.ingest('acme', [dir], { baseUrl: 'https://docs.acme.test/' });
    const [first] = await searchDocs(engine, 'acme', 'pasphrase');
    expect(first?.url).toContain('passphrase');
    const [exported] = await searchDocs(engine, 'acme', 'exportaiton');
    expect(exported?.url).toContain('exports');
    const signal = new AbortController().signal;
    const answer = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: 'where do i find my pasphrase?', sources: [] }], signal });
    expect(answer.sources[0]?.url).toContain('passphrase');
  });
});
