import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serveDocsSite, type DocsSite } from '../../helpers/docs-site.js';

const root = resolve(import.meta.dirname, '../../..');
const cli = resolve(root, 'src/cli/index.ts');

/** Runs `support-chat ARGS` as a person would (the site is served by this process, so the child runs asynchronously). */
function run(args: string[], dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args, '--data', dataDir], { cwd: root, env: { ...process.env, SUPPORT_CHAT_DATABASE_URL: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

let site: DocsSite | undefined;
let dir: string | undefined;
afterEach(async () => {
  await site?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  site = undefined;
});

describe('kb ingest URL, kb sources and kb sync as a person runs them', () => {
  it('ingests a docs site beside a folder, lists both sources, syncs them, with one summary line each', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kb-cli-'));
    await writeFile(join(dir, 'faq.md'), '# FAQ\n\n## Refunds\n\nRefunds take five days.\n');
    site = await serveDocsSite({ pages: { '/docs/': { title: 'Docs', html: '<p>Hello.</p>' }, '/docs/errors': { title: 'Errors', html: '<p>Errors are JSON.</p>' } }, robots: null });
    const ingested = await run(['kb', 'ingest', join(dir, 'faq.md'), `${site.url}/docs/`, '--org', 'acme', '--max-pages', '50'], join(dir, 'data'));
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout.trim()).toMatch(/^Ingested 1 files and 2 pages \(\d+ requests\) for acme: 3 added, 0 updated, 0 unchanged, 0 removed \(\d+ sections written\)\.$/);
    const sources = await run(['kb', 'sources', '--org', 'acme'], join(dir, 'data'));
    expect(sources.stdout).toContain(`${site.url}/docs/ (site): synced `);
    expect(sources.stdout).toMatch(/faq\.md \(path\): synced .*, ok, 1 pages, 1 sections/);
    const synced = await run(['kb', 'sync', '--org', 'acme'], join(dir, 'data'));
    expect(synced.stdout.trim()).toMatch(/^Synced 2 sources: 1 files and 2 pages .* 0 added, 0 updated, 3 unchanged, 0 removed/);
  }, 60_000);

  it('shows a sync the guard kept in kb sources until kb sync --accept replaces the pages', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kb-cli-'));
    const pages = Object.fromEntries(['', 'a', 'b', 'c'].map((p) => [`/docs/${p}`, { title: `Page ${p}`, html: `<p>Text of page ${p}.</p>` }]));
    site = await serveDocsSite({ pages, robots: null });
    const data = join(dir, 'data');
    expect((await run(['kb', 'ingest', `${site.url}/docs/`, '--org', 'acme'], data)).code).toBe(0);
    site.options.pages = { '/docs/': pages['/docs/']! };
    const kept = await run(['kb', 'sync', '--org', 'acme'], data);
    expect(kept.stderr).toContain(`failed ${site.url}/docs/: found 1 pages where the site held 4 in the last 30 days: the previous pages are kept`);
    const listed = await run(['kb', 'sources', '--org', 'acme'], data);
    expect(listed.stdout).toMatch(/\(site\): synced .*, kept, 4 pages/);
    expect(listed.stdout).toContain('support-chat-kit kb sync --accept --org acme replaces them with what the site has now');
    const accepted = await run(['kb', 'sync', '--accept', '--org', 'acme'], data);
    expect(accepted.stdout).toMatch(/3 removed/);
    // The chrome's pagination links /docs/errors, which is gone: partial.
    expect((await run(['kb', 'sources', '--org', 'acme'], data)).stdout).toMatch(/\(site\): synced .*, partial, 1 pages/);
  }, 120_000);

  it('fails with one clear line and exit code 2 for a bad URL, an unreachable site, and a robots.txt that forbids everything', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kb-cli-'));
    site = await serveDocsSite({ pages: {}, robots: 'User-agent: *\nDisallow: /\n' });
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((closing) => closed.close(() => closing()));
    const cases: [string, string][] = [
      ['ftp://docs.acme.test/', 'support-chat-kit kb ingest: "ftp://docs.acme.test/" is not an http(s) URL'],
      [`http://127.0.0.1:${port}/docs/`, `support-chat-kit kb ingest: cannot reach http://127.0.0.1:${port}: `],
      [`${site.url}/docs/`, `support-chat-kit kb ingest: ${site.url}/robots.txt forbids crawling ${site.url}/docs/`],
    ];
    for (const [url, line] of cases) {
      const result = await run(['kb', 'ingest', url, '--org', 'acme'], join(dir, 'data'));
      expect(result.code, url).toBe(2);
      // One line says what went wrong (beside the line naming the database the command opened).
      const lines = result.stderr.trim().split('\n').filter((l) => !l.startsWith('support-chat-kit: database:'));
      expect(lines, url).toHaveLength(1);
      expect(lines[0]!.startsWith(line), result.stderr).toBe(true);
    }
  }, 120_000);
});
