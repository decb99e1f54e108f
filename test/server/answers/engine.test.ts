import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mapCitations, NOT_ANSWERED } from '../../../src/server/answers/index.js';
import { NOTHING_RELATED, NO_ANSWER, RELATED_INTRO } from '../../../src/server/answers/compose.js';
import type { Message } from '../../../src/protocol/index.js';
import { openTestEngine } from '../../helpers/answer-engine.js';
import { fakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';

const fixtures = resolve(import.meta.dirname, '../../fixtures/kb');
let work: string;
let llm: FakeLlm | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'support-chat-kb-'));
  cpSync(fixtures, work, { recursive: true });
});
afterEach(async () => {
  rmSync(work, { recursive: true, force: true });
  await llm?.close();
  llm = undefined;
});

function engine(options: { llm?: FakeLlm } = {}) {
  return openTestEngine({
    llm: options.llm ? { baseUrl: options.llm.baseUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 500, retries: 1 } : null,
  });
}

const ask = (e: Awaited<ReturnType<typeof engine>>, ...turns: string[]) => {
  const messages: Message[] = turns.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content, sources: [] }));
  return e.answer({ orgId: 'acme', messages, signal: new AbortController().signal });
};

async function ingested(options: { llm?: FakeLlm } = {}) {
  const e = await engine(options);
  await e.ingest('acme', [join(work, 'docs'), join(work, 'code')], { baseUrl: 'https://github.com/acme/sync/blob/main/' });
  return e;
}

describe('ingestion', () => {
  it('makes one section per heading with GitHub-style anchors, explicit {#id}, and duplicate suffixes', async () => {
    const e = await ingested();
    const urls = (await e.search('acme', 'install CLI windows password reset', { limit: 20 })).map((h) => h.section.url);
    expect(urls).toEqual(
      expect.arrayContaining([
        'https://docs.example.com/start#install-the-cli',
        'https://docs.example.com/start#install-on-windows',
        'https://docs.example.com/start#password-reset',
        'https://docs.example.com/start#install-the-cli-1',
      ]),
    );
    const reset = (await e.search('acme', 'reset password'))[0]!.section;
    expect(reset.title).toBe('Reset your password');
  });

  it('reads MDX without its imports and components, HTML without scripts, and plain text', async () => {
    const e = await ingested();
    const limits = (await e.search('acme', 'rate limit 429 Retry-After'))[0]!.section;
    expect(limits.url).toBe('https://github.com/acme/sync/blob/main/docs/api.mdx#rate-limits');
    expect(limits.body).toContain('Each token may send 120 requests per minute.');
    expect(limits.body).not.toContain('import');
    const hooks = (await e.search('acme', 'verify webhook signature'))[0]!.section;
    expect(hooks.url).toBe('https://github.com/acme/sync/blob/main/docs/webhooks.html#verify-signatures');
    // Found by meaning, a section may still come up; none holds the script's text.
    expect((await e.search('acme', 'alert never indexed')).filter((h) => /alert|never indexed/i.test(`${h.section.body}\n${h.section.code}`))).toEqual([]);
    expect((await e.search('acme', 'selective sync large folders'))[0]!.section.url).toMatch(/changelog\.txt$/);
  });

  it('splits code at functions and classes with line ranges, in TypeScript, Python, Go, Rust and Java', async () => {
    const e = await ingested();
    const top = async (q: string) => (await e.search('acme', q))[0]!.section;
    expect((await top('retryBackoffDelay')).url).toBe('https://github.com/acme/sync/blob/main/code/sync_client.ts#L14-L17');
    expect((await top('SyncClient uploadFile')).url).toBe('https://github.com/acme/sync/blob/main/code/sync_client.ts#L3-L12');
    expect((await top('resolve_conflict newest version')).url).toMatch(/conflicts\.py#L4-L8$/);
    expect((await top('conflict copy namer')).title).toBe('ConflictCopyNamer');
    expect((await top('WatchFolder')).url).toMatch(/watcher\.go#L3-L7$/);
    expect((await top('content hash changed files')).url).toMatch(/hashing\.rs#L1-L9$/);
    expect((await top('exclude folder selective')).url).toMatch(/Selective\.java#L/);
  });

  it('skips unchanged files, replaces changed ones and drops deleted ones on re-ingest', async () => {
    const e = await ingested();
    const again = await e.ingest('acme', [join(work, 'docs'), join(work, 'code')], { baseUrl: 'https://github.com/acme/sync/blob/main/' });
    expect(again).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 9 });
    writeFileSync(join(work, 'docs', 'changelog.txt'), 'Version 3.0 adds end-to-end encryption.');
    unlinkSync(join(work, 'code', 'watcher.go'));
    const changed = await e.ingest('acme', [join(work, 'docs'), join(work, 'code')], { baseUrl: 'https://github.com/acme/sync/blob/main/' });
    expect(changed).toMatchObject({ updated: 1, removed: 1 });
    expect((await e.search('acme', 'encryption'))[0]!.section.body).toContain('end-to-end encryption');
    const changelog = (await e.search('acme', 'version selective sync large folders', { limit: 20 })).filter((h) => h.section.url.includes('changelog'));
    expect(changelog.map((h) => h.section.body)).toEqual(['Version 3.0 adds end-to-end encryption.']);
    expect((await e.search('acme', 'WatchFolder', { limit: 50 })).filter((h) => h.section.url.includes('watcher.go'))).toEqual([]);
  });

  it('keeps organizations apart', async () => {
    const e = await ingested();
    expect(await e.search('globex', 'reset password')).toEqual([]);
  });

  it('refuses a path that does not exist', async () => {
    await expect((await engine()).ingest('acme', [join(work, 'nope')])).rejects.toThrow(/no such file or directory/);
  });
});

describe('answers without an LLM', () => {
  it('answers from the best passages with their sources, at most 5, no duplicates, best first', async () => {
    const e = await ingested();
    const answer = await ask(e, 'How do I reset my password?');
    expect(answer.sources[0]).toEqual({ title: 'Reset your password — Getting started', url: 'https://docs.example.com/start#password-reset' });
    expect(answer.sources.length).toBeLessThanOrEqual(5);
    expect(new Set(answer.sources.map((s) => s.url)).size).toBe(answer.sources.length);
    expect(answer.content).toContain('Open Settings, choose Security, then press Reset password.');
  });

  it('says nothing the sources do not say: every sentence of the reply comes from a cited section', async () => {
    const e = await ingested();
    for (const question of ['How do I install on Windows?', 'What happens when I exceed the rate limit?', 'How are conflicts resolved?']) {
      const answer = await ask(e, question);
      const cited = await e.search('acme', question, { limit: 20 });
      const text = cited.filter((h) => answer.sources.some((s) => s.url === h.section.url)).map((h) => `${h.section.title}\n${h.section.body}\n${h.section.code}`).join('\n');
      // A later section's caption ("From [Limits — Docs](…):") names where its words come from: it is not quoted.
      const prose = answer.content.replace(/```[\s\S]*?```/g, '').replace(/^— .*$/gm, '').replace(/^From \[[^\]\n]*\]\([^)\n]*\):$/gm, '');
      for (const sentence of prose.split(/\n+/).map((s) => s.trim()).filter(Boolean)) {
        expect(text.replace(/\s+/g, ' ')).toContain(sentence.replace(/\s+/g, ' '));
      }
    }
  });

  it('says plainly when nothing relevant is found, suggests a human and cites nothing', async () => {
    const e = await ingested();
    const answer = await ask(e, 'What is the capital of Mongolia?');
    expect(answer).toEqual({ content: NO_ANSWER, sources: [], isUncertain: true });
    expect(answer).toEqual(NOTHING_RELATED);
    expect(answer.content).toMatch(/human/);
  });

  it('answers, shows related pages, or says nothing is related: three outcomes', async () => {
    const e = await ingested();
    const sure = await ask(e, 'How do I reset my password?');
    expect(sure.isUncertain).toBe(false);
    expect(sure.sources[0]!.url).toBe('https://docs.example.com/start#password-reset');
    // The passage is not followed by a "— Section — Page" line: the sources say where it is from.
    expect(sure.content).toBe('Open Settings, choose Security, then press Reset password. A reset link arrives by email within five minutes.');
    // Loosely matched: not an answer, but the page that may hold one, and its sentence quoted as a passage that may help.
    const related = await ask(e, 'how fast does the email with the link come');
    expect(related.isUncertain).toBe(true);
    expect(related.content.startsWith(RELATED_INTRO)).toBe(true);
    expect(related.content).toContain('“Reset your password — Getting started” says:\n\n> Open Settings, choose Security, then press Reset password. A reset link arrives by email within five minutes.');
    expect(related.sources[0]!.url).toBe('https://docs.example.com/start#password-reset');
    expect(related.sources.length).toBeLessThanOrEqual(5);
    // Related pages are listed once each (a source file once, whichever of its pieces ranked).
    const loose = await ask(e, 'my folders are not the same on both computers');
    expect(loose.isUncertain).toBe(true);
    const files = loose.sources.map((s) => s.url.replace(/#L.*$/, ''));
    expect(new Set(files).size).toBe(files.length);
    expect(loose.sources.length).toBeGreaterThan(1);
  });

  it('uses earlier turns for a follow-up', async () => {
    const e = await ingested();
    const answer = await ask(e, 'How do I install the CLI?', 'Install the command-line tool with npm.', 'And on Windows?');
    expect(answer.sources[0]!.url).toBe('https://docs.example.com/start#install-on-windows');
  });

  it('summarizes a conversation faithfully for escalation', async () => {
    const e = await ingested();
    const messages: Message[] = [
      { role: 'user', content: 'My sync is stuck at 99%', sources: [] },
      { role: 'assistant', content: 'Version 1.5 fixed conflicts when two machines edit the same file.', sources: [{ title: 'Changelog', url: 'https://x/changelog' }] },
    ];
    const summary = await e.summarize({ orgId: 'acme', messages });
    expect(summary).toContain('"My sync is stuck at 99%"');
    expect(summary).toContain('Version 1.5 fixed conflicts');
    expect(summary).toContain('asked to talk to a human');
    expect(await e.title({ orgId: 'acme', messages })).toBe('My sync is stuck at 99%');
  });

  it('indexes a synced ticket and forgets everything derived from it when it is deleted', async () => {
    const e = await ingested();
    await e.indexTicket('acme', { source: 'plain', externalId: 'th_1', title: 'Quasar flux capacitor broken', body: 'The quasar flux capacitor fails.', url: null });
    expect((await e.search('acme', 'quasar flux capacitor', { includeTickets: true })).map((h) => h.section.docKey)).toEqual(['ticket:plain:th_1']);
    expect(await e.search('acme', 'quasar flux capacitor')).toEqual([]);
    await e.forgetTicket('acme', 'plain', 'th_1');
    expect(await e.search('acme', 'quasar flux capacitor', { includeTickets: true })).toEqual([]);
  });
});

describe('answers with an LLM', () => {
  it('sends a grounded prompt with numbered sources and maps citations back to them', async () => {
    llm = await fakeLlm();
    llm.script = ['Open Settings and choose Security [1]. Then press Reset password [1][7].'];
    const e = await ingested({ llm });
    const answer = await ask(e, 'How do I reset my password?');
    const prompt = llm.requests[0]!.messages[0]!.content;
    expect(prompt).toMatch(/\[1\] .*\(https:\/\/docs\.example\.com\/start#password-reset\)/);
    expect(llm.requests[0]!.model).toBe('test-model');
    expect(answer.content).toBe('Open Settings and choose Security [1]. Then press Reset password [1].');
    expect(answer.sources).toHaveLength(1);
  });

  it('gives the model each source as its blocks, as written, cut at a block boundary', async () => {
    const filler = (n: number) => Array.from({ length: 12 }, (_, i) => `Paragraph ${n} sentence ${i} says something more about quotas.`).join(' ');
    writeFileSync(
      join(work, 'docs', 'quotas.md'),
      ['# Quotas', '', '## Raise your quota', '', 'Raise the quota in three steps:', '', '1. Open **Settings**.', '2. Choose *Quotas*.', '3. Press Raise.', '', '```ts', "import { raise } from '@acme/sync';", 'await raise(10);', '```', '', filler(1), '', filler(2), '', filler(3), ''].join('\n'),
    );
    llm = await fakeLlm();
    llm.script = ['Open Settings, choose Quotas, then press Raise [1].'];
    const e = await ingested({ llm });
    await ask(e, 'How do I raise my quota?');
    const prompt = llm.requests[0]!.messages[0]!.content;
    const source = prompt.slice(prompt.indexOf('\n[1] '));
    expect(source).toContain('Raise the quota in three steps:\n\n1. Open **Settings**.\n2. Choose Quotas.\n3. Press Raise.');
    expect(source).toContain("```ts\nimport { raise } from '@acme/sync';\nawait raise(10);\n```");
    // Whole paragraphs up to about 1,500 characters, then "…": never a paragraph cut in two.
    expect(source).toContain(filler(1));
    expect(source).not.toContain('Paragraph 3');
    expect(source.split('\n\n[2] ')[0]!.trimEnd()).toMatch(/(?:quotas\.|…)$/);
    expect(source).toContain('…');
  });

  it('gives the model a first paragraph longer than a source cut after a whole sentence', async () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence ${i} of the long paragraph says more about archive retention.`);
    writeFileSync(join(work, 'docs', 'retention.md'), ['# Retention', '', '## Archive retention', '', sentences.join(' '), ''].join('\n'));
    llm = await fakeLlm();
    llm.script = ['Archives are kept [1].'];
    const e = await ingested({ llm });
    await ask(e, 'How long is archive retention?');
    const prompt = llm.requests[0]!.messages[0]!.content;
    const source = prompt.slice(prompt.indexOf('\n[1] ')).split('\n\n[2] ')[0]!;
    expect(source).toContain(sentences[0]);
    expect(source).not.toContain('Sentence 39');
    // Whole sentences, about 1,500 characters of them, then "…".
    const kept = source.slice(source.indexOf('Sentence 0'), source.lastIndexOf('\n…'));
    expect(kept.endsWith('retention.')).toBe(true);
    expect(kept.length).toBeGreaterThan(1_300);
    expect(kept.length).toBeLessThanOrEqual(1_500);
  });

  it('retries a failing provider and falls back to the local answer when it keeps failing', async () => {
    llm = await fakeLlm();
    llm.script = [500, 'hang'];
    const e = await ingested({ llm });
    const answer = await ask(e, 'How do I reset my password?');
    expect(llm.requests).toHaveLength(2);
    expect(answer.content).toContain('Open Settings, choose Security, then press Reset password.');
    expect(answer.sources[0]!.url).toBe('https://docs.example.com/start#password-reset');
  });

  it('does not call the provider when nothing relevant is found', async () => {
    llm = await fakeLlm();
    const e = await ingested({ llm });
    expect(await ask(e, 'What is the capital of Mongolia?')).toEqual(NOTHING_RELATED);
    expect(llm.requests).toHaveLength(0);
  });

  it("turns the model's machine-readable \"not answered\" into an uncertain reply with the passages as related pages, in the visitor's language", async () => {
    llm = await fakeLlm();
    llm.script = [`${NOT_ANSWERED} No he encontrado una respuesta directa en la documentación; las páginas enlazadas pueden ayudar [1].`];
    const e = await ingested({ llm });
    const answer = await ask(e, 'Can I reset the password of a shared team account?');
    expect(llm.requests[0]!.messages[0]!.content).toContain("Reply in the language of the customer's last message.");
    expect(llm.requests[0]!.messages[0]!.content).toContain(NOT_ANSWERED);
    expect(answer.isUncertain).toBe(true);
    expect(answer.content).toBe('No he encontrado una respuesta directa en la documentación; las páginas enlazadas pueden ayudar.');
    expect(answer.content).not.toContain(NOT_ANSWERED);
    expect(answer.sources.length).toBeGreaterThan(0);
    expect(answer.sources.length).toBeLessThanOrEqual(5);
  });

  it('condenses a follow-up into a standalone question with the LLM before retrieval', async () => {
    llm = await fakeLlm();
    llm.script = ['Acme Sync installs with npm [1].', 'How do I install Acme Sync on Windows?', 'Run the installer from the releases page [1].'];
    const e = await ingested({ llm });
    const first = await ask(e, 'How do I install the CLI?');
    const answer = await ask(e, 'How do I install the CLI?', first.content, 'and on windows?');
    // The second request asks for the standalone question, with the conversation.
    expect(llm.requests[1]!.messages[0]!.content).toMatch(/standalone question/);
    expect(llm.requests[1]!.messages[1]!.content).toContain('Customer: and on windows?');
    // Retrieval used it: the Windows section is the first source the model was given.
    expect(llm.requests[2]!.messages[0]!.content).toMatch(/\[1\] .*\(https:\/\/docs\.example\.com\/start#install-on-windows\)/);
    expect(answer).toEqual({ content: 'Run the installer from the releases page [1].', sources: [expect.objectContaining({ url: 'https://docs.example.com/start#install-on-windows' })], isUncertain: false });
  });

  it('maps citations: keeps cited sources in order of first use and drops unknown numbers', () => {
    const sources = [1, 2, 3].map((n) => ({ title: `S${n}`, url: `https://x/${n}` }));
    expect(mapCitations('A [3]. B [1][3]. C [9].', sources)).toEqual({ content: 'A [1]. B [2][1]. C.', sources: [sources[2], sources[0]] });
  });
});
