/**
 * @module End to end: the built bundles load a built-in language other than English on demand, from
 * dist/locales/ next to them, in a page under the demo's strict CSP with Trusted Types enforced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { DEMO_CSP } from '../../scripts/demo-server.mjs';
import { buildWidget } from '../helpers/build-widget.js';
import { launch, watchedPage } from './helpers/browser.js';

let browser: Browser;
let site: Server;
let siteUrl: string;
let out: string;

const PAGES: Record<string, string> = {
  // A classic script on a French page.
  '/iife.html': '<!doctype html><html lang="fr"><title>Boutique</title><body><script src="/dist/support-chat.iife.js"></script><support-chat endpoint="/api/support"></support-chat></body></html>',
  // The ES module, the language on the element.
  '/module.html': '<!doctype html><html lang="en"><title>Shop</title><body><script type="module" src="/page.js"></script><support-chat endpoint="/api/support" lang="ar"></support-chat></body></html>',
  '/page.js': "import '/dist/support-chat.js';",
};

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-locales-'));
  await buildWidget(out);
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = PAGES[path];
    const headers = { 'content-security-policy': DEMO_CSP };
    if (page !== undefined) {
      res.writeHead(200, { ...headers, 'content-type': path.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8' });
      return res.end(page);
    }
    if (path.startsWith('/dist/')) {
      try {
        const body = readFileSync(join(out, normalize(path.slice('/dist/'.length)).replace(/^(\.\.[/\\])+/, '')));
        res.writeHead(200, { ...headers, 'content-type': 'text/javascript; charset=utf-8' });
        return res.end(body);
      } catch {
        // Not built: a 404 below.
      }
    }
    res.writeHead(404, headers);
    res.end();
  });
  siteUrl = await new Promise<string>((resolve) => site.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(site.address() as { port: number }).port}`)));
  browser = await launch();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('built-in languages from the built bundles', () => {
  it('the classic script on a lang="fr" page shows French, its text loaded from dist/locales/fr.js', async () => {
    const context = await browser.newContext();
    const { page, problems, requests } = await watchedPage(context);
    await page.goto(`${siteUrl}/iife.html`);
    const launcher = page.locator('[part~="launcher"]');
    await expect.poll(() => launcher.getAttribute('aria-label')).toBe("Ouvrir le chat d'assistance");
    await launcher.click();
    await expect.poll(() => page.locator('[part~="send-button"]').textContent().then((t) => t?.trim())).toBe('Envoyer');
    expect(requests.filter((url) => url.includes('/locales/'))).toEqual([`${siteUrl}/dist/locales/fr.js`]);
    expect(problems.filter((p) => /securitypolicyviolation|Trusted Type|pageerror/i.test(p))).toEqual([]);
    await context.close();
  });

  it('the ES module shows Arabic, right to left, for lang="ar" on the element', async () => {
    const context = await browser.newContext();
    const { page, problems, requests } = await watchedPage(context);
    await page.goto(`${siteUrl}/module.html`);
    const launcher = page.locator('[part~="launcher"]');
    await expect.poll(() => launcher.getAttribute('aria-label')).toBe('فتح محادثة الدعم');
    await launcher.click();
    expect(await page.locator('[part~="panel"]').getAttribute('dir')).toBe('rtl');
    expect(requests.filter((url) => url.includes('/locales/'))).toEqual([`${siteUrl}/dist/locales/ar.js`]);
    expect(problems.filter((p) => /securitypolicyviolation|Trusted Type|pageerror/i.test(p))).toEqual([]);
    await context.close();
  });
});
