/**
 * `support-chat-kit serve --site DIR` as a site owner runs it: a static build served with clean
 * URLs and its own 404 page, nothing outside it, and the proxy at /api/support on the same origin
 * answering from the API the same process serves. The widget's files come from the package when
 * the build lacks them (checked on the listener itself, with a widget folder of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { rawRequest } from '../helpers/raw-http.js';
import { siteBase, siteListener } from '../../src/cli/site-server.js';

const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');
let tmp = '';
let build = '';
let child: ChildProcess | undefined;
let site = '';

/** A built docs site as the generators write one: pages as `x.html` and `x/index.html`, a 404 page, assets. */
function writeBuild(dir: string): void {
  const page = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
  mkdirSync(join(dir, 'guide'), { recursive: true });
  mkdirSync(join(dir, 'start'), { recursive: true });
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), page('Home'));
  writeFileSync(join(dir, 'guide', 'install.html'), page('Install'));
  writeFileSync(join(dir, 'start', 'index.html'), page('Start'));
  writeFileSync(join(dir, '404.html'), page('Page not found'));
  writeFileSync(join(dir, 'assets', 'app.js'), 'export {};\n');
}

beforeAll(async () => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sc-serve-site-')));
  build = join(tmp, 'build');
  writeBuild(build);
  writeFileSync(join(tmp, 'secret.txt'), 'outside the build');
  symlinkSync(join(tmp, 'secret.txt'), join(build, 'leak.txt'));
  mkdirSync(join(tmp, 'docs'));
  writeFileSync(join(tmp, 'docs', 'billing.md'), '# Billing\n\n## Refunds\n\nA refund is issued within 14 days of your request.\n');
  const data = join(tmp, 'data');
  runCli(['kb', 'ingest', join(tmp, 'docs'), '--org', 'acme'], data);
  const token = runCli(['token', 'create', '--org', 'acme', '--name', 'website', '--scopes', 'chat:read,chat:write'], data).trim();
  const env = { ...process.env, SUPPORT_CHAT_TOKEN: token, SUPPORT_PROXY_SECRET: 'a-visitor-signing-secret-of-32-chars!!' };
  child = spawn(process.execPath, ['--import', import.meta.resolve('tsx/esm'), cli, 'serve', '--port', '0', '--site', build, '--site-port', '0', '--data', data], { cwd: tmp, env, stdio: ['ignore', 'pipe', 'inherit'] });
  site = await new Promise<string>((done, fail) => {
    let out = '';
    child!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('Your site'));
      if (line) done(line.slice(line.lastIndexOf(' ') + 1).replace(/\/$/, ''));
    });
    child!.once('exit', (code) => fail(new Error(`serve exited with ${code}: ${out}`)));
  });
}, 120_000);

afterAll(() => {
  child?.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('serve --site', () => {
  it('serves the build with clean URLs: x.html, x/index.html (from x/ after a redirect), and assets', async () => {
    expect(await (await fetch(`${site}/`)).text()).toContain('<h1>Home</h1>');
    const install = await fetch(`${site}/guide/install`);
    expect(install.status).toBe(200);
    expect(install.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await install.text()).toContain('<h1>Install</h1>');
    expect(await (await fetch(`${site}/guide/install.html`)).text()).toContain('<h1>Install</h1>');
    const folder = await fetch(`${site}/start`, { redirect: 'manual' });
    expect(folder.status).toBe(308);
    expect(folder.headers.get('location')).toBe('/start/');
    expect(await (await fetch(`${site}/start/`)).text()).toContain('<h1>Start</h1>');
    const asset = await fetch(`${site}/assets/app.js`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it("answers a miss with the site's 404 page, and serves nothing outside the build", async () => {
    const miss = await fetch(`${site}/guide/nowhere`);
    expect(miss.status).toBe(404);
    expect(await miss.text()).toContain('Page not found');
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/guide/..%2f..%2fsecret.txt', '/leak.txt', '/%00', '/..%5csecret.txt']) {
      const exchange = rawRequest(site, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(await exchange.status, path).toBe(404);
      await exchange.closed;
      expect(exchange.received(), path).not.toContain('outside the build');
    }
    // A folder's redirect never names another host (`//start/` would).
    const redirect = rawRequest(site, 'GET /%2Fstart HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(await redirect.status).toBe(308);
    await redirect.closed;
    expect(redirect.received()).toContain('\r\nlocation: /%2Fstart/\r\n');
  });

  it('relays the widget’s requests under /api/support to the API on the same origin', async () => {
    const response = await fetch(`${site}/api/support/search?q=refund`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { url: string; title: string }[] };
    expect(body.results.map((r) => r.url)).toContain('docs/billing#refunds');
  });
});

describe('the site listener', () => {
  let server: Server;
  let url = '';
  afterAll(() => server?.close());

  it("serves the widget's files from the package when the build lacks them, and the build's own when it has them", async () => {
    const root = join(tmp, 'plain-build');
    writeBuild(root);
    const widget = join(tmp, 'widget');
    mkdirSync(join(widget, 'locales'), { recursive: true });
    writeFileSync(join(widget, 'support-chat.iife.js'), '/* the package widget */');
    writeFileSync(join(widget, 'locales', 'fr.js'), '/* fr */');
    writeFileSync(join(widget, 'secret.js'), '/* not a widget file */');
    writeFileSync(join(root, 'search.js'), '/* the site search */');
    writeFileSync(join(widget, 'search.js'), '/* the package search */');
    const listener = await siteListener({ root, widget, proxy: (_req, res) => void res.writeHead(204).end() });
    server = createServer(listener);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    expect(await (await fetch(`${url}/support-chat.iife.js`)).text()).toBe('/* the package widget */');
    expect(await (await fetch(`${url}/locales/fr.js`)).text()).toBe('/* fr */');
    expect(await (await fetch(`${url}/search.js`)).text()).toBe('/* the site search */');
    expect((await fetch(`${url}/secret.js`)).status).toBe(404);
    expect((await fetch(`${url}/api/support/chat`, { method: 'POST' })).status).toBe(204);
    expect((await fetch(`${url}/guide/install`, { method: 'POST' })).status).toBe(405);
  });

  it('reads a base path as /…/, percent-encoded as in a URL, and refuses one that is not a plain path', () => {
    expect([undefined, '/', '', 'proj', '/proj', 'proj/', '//a//b/', '/données/'].map(siteBase)).toEqual(['/', '/', '/', '/proj/', '/proj/', '/proj/', '/a/b/', '/donn%C3%A9es/']);
    for (const bad of ['/a/../b', '/./', '/a b/', '/a?b', '/a#b', '/%2e%2e/', '\\proj']) expect(() => siteBase(bad), bad).toThrow(TypeError);
  });

  it('serves a build published under a folder at that folder, the proxy at the origin’s /api/support', async () => {
    const root = join(tmp, 'base-build');
    writeBuild(root);
    const listener = await siteListener({ root, base: 'proj', widget: null, proxy: (_req, res) => void res.writeHead(204).end() });
    const based = createServer(listener);
    await new Promise<void>((done) => based.listen(0, '127.0.0.1', done));
    const at = `http://127.0.0.1:${(based.address() as { port: number }).port}`;
    try {
      expect(await (await fetch(`${at}/proj/`)).text()).toContain('<h1>Home</h1>');
      expect(await (await fetch(`${at}/proj/guide/install`)).text()).toContain('<h1>Install</h1>');
      // Redirects stay under the folder; the origin's root and the folder without its slash lead to the home page.
      for (const [path, location] of [['/proj/start', '/proj/start/'], ['/proj', '/proj/'], ['/', '/proj/']]) {
        const redirect = await fetch(`${at}${path}`, { redirect: 'manual' });
        expect([redirect.status, redirect.headers.get('location')], path).toEqual([308, location]);
      }
      // The build's files are not at the origin's root, nor under a path that only begins like the folder.
      for (const path of ['/guide/install', '/project/guide/install', '/projguide/install']) {
        const miss = await fetch(`${at}${path}`);
        expect(miss.status, path).toBe(404);
        expect(await miss.text()).toContain('Page not found');
      }
      expect((await fetch(`${at}/api/support/chat`, { method: 'POST' })).status).toBe(204);
    } finally {
      based.close();
    }
  });
});
