/**
 * The package as users install it: `npm pack` from a tree with nothing built (as in a fresh clone),
 * installed into a new project, its command run and its entry points imported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finishInstall, installArgs, npm, pack } from '../helpers/pack.js';

let work: string;
let app: string;
let files: string[];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'support-chat-pack-'));
  const packed = pack(work);
  files = packed.files;
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-site', version: '1.0.0', private: true, type: 'module' }));
  npm(installArgs(packed.tarball), app);
  finishInstall(app);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the built widget, server, proxy, CLI, types and the custom elements manifest', () => {
    for (const file of ['dist/support-chat.js', 'dist/support-chat.iife.js', 'dist/locales/fr.js', 'dist/markdown.js', 'dist/search.js', 'dist/node/server/index.js', 'dist/node/proxy/index.js', 'dist/node/cli/index.js', 'dist/types/widget/index.d.ts', 'bin/support-chat.js', 'custom-elements.json', 'package.json', 'README.md', 'dist/node/server/dashboard/assets/index.html', 'dist/node/server/dashboard/assets/dashboard.js', 'dist/node/cli/templates/server.mjs']) {
      expect(files).toContain(file);
    }
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);
  });

  it('runs `npx support-chat-kit` in the project that installed it', () => {
    const help = spawnSync('npx', ['--no-install', 'support-chat-kit', '--help'], { cwd: app, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: support-chat-kit <command>');
    const created = spawnSync('npx', ['--no-install', 'support-chat-kit', 'token', 'create', '--org', 'acme', '--name', 'site', '--scopes', 'chat:read', '--json', '--data', join(app, 'data')], { cwd: app, encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).token).toMatch(/^sc_live_/);
  });

  it('imports support-chat-kit/proxy and support-chat-kit/server, and answers a request through both', () => {
    const script = `
      import { createSupportProxy } from 'support-chat-kit/proxy';
      import { createServer } from 'support-chat-kit/server';
      const server = await createServer({ dataDir: ':memory:', logger: { info() {}, warn() {}, error() {} } });
      const { token } = await server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read', 'chat:write'] });
      const proxy = createSupportProxy({ apiBaseUrl: 'http://api.invalid', token, secret: 'a'.repeat(32), fetch: (input, init) => server.fetch(new Request(input, init)) });
      const res = await proxy(new Request('http://site.test/api/support/chat', { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://site.test' }, body: JSON.stringify({ message: 'hello' }) }));
      // One string: a number passed to console.log is coloured when FORCE_COLOR is set.
      console.log([res.status, typeof createSupportProxy, typeof createServer].join(' '));
      await server.close();
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('202 function function');
  });

  it('ingests docs with their sentence embeddings, from the model inside the installed packages', () => {
    const docs = join(app, 'docs');
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, 'billing.md'), '# Billing\n\n## Refund policy\n\nA refund is issued within 14 days of your request.\n');
    const ingested = spawnSync('npx', ['--no-install', 'support-chat-kit', 'kb', 'ingest', docs, '--org', 'acme', '--data', join(app, 'data')], { cwd: app, encoding: 'utf8' });
    expect(ingested.status, ingested.stderr).toBe(0);
    const script = `
      import Database from 'better-sqlite3';
      const db = new Database(${JSON.stringify(join(app, 'data', 'support-chat.db'))}, { readonly: true });
      console.log(db.prepare("SELECT length(embedding) AS n FROM kb_sections WHERE org_id = 'acme'").all().map((r) => r.n).join(','));
    `;
    const stored = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
    expect(stored.stdout.trim(), stored.stderr).toBe('512');
    const stats = spawnSync('npx', ['--no-install', 'support-chat-kit', 'kb', 'stats', '--org', 'acme', '--data', join(app, 'data')], { cwd: app, encoding: 'utf8' });
    // The first line counts what is stored; the next says whether the model that embeds is ready.
    expect(stats.stdout.split('\n')[0]).toBe('acme: 1 documents, 1 sections, 1 of 1 prose sections embedded');
    expect(stats.stdout).toMatch(/^sentence embeddings: ready/m);
  });

  it('imports the VitePress, Starlight and Docusaurus plugins, without the generators installed', () => {
    const script = `
      const { withSupportChat: vitepress } = await import('support-chat-kit/vitepress');
      const { default: starlight } = await import('support-chat-kit/starlight');
      const { default: docusaurus } = await import('support-chat-kit/docusaurus');
      console.log(typeof vitepress, typeof starlight, typeof docusaurus);
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('function function function');
  });

  it('installs without redis, which only shared limits need', () => {
    expect(readdirSync(join(app, 'node_modules'))).not.toContain('redis');
  });
});
