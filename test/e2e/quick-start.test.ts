/**
 * @module The README's "Your own site in five minutes", exactly as printed: its marked blocks are
 * read from README.md (not copied here) and run in order, in a new folder that holds a small help
 * center of its own and installs the packed package; then a visitor asks a question on the page in
 * Chromium, follows its source link's address, and asks for a human, which reaches server.mjs
 * through the webhook.
 *
 * The one substitution: `npm install support-chat-kit` installs the packed tarball (the registry
 * does not have this build), without install scripts, with SQLite's native build from this checkout.
 * Ports come from the environment (`PORT`, `SUPPORT_CHAT_API_PORT`, …), which wins over `.env` as the
 * README says, so that the test never takes 3000 or 8787 from something else on the machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { finishInstall, installArgs, pack, repoRoot } from '../helpers/pack.js';
import { launch, watchedPage } from './helpers/browser.js';

interface Block {
  kind: 'run' | 'start' | 'file';
  file?: string;
  code: string;
}

/** The README's quick-start blocks, in order: each fenced block right after a `<!-- quick-start: … -->` marker. */
function quickStartBlocks(): Block[] {
  const tree = fromMarkdown(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
  const blocks: Block[] = [];
  tree.children.forEach((node, i) => {
    if (node.type !== 'html') return;
    const marker = /^<!-- quick-start: (run|start|file) ?(\S*) -->$/.exec(node.value.trim());
    if (!marker) return;
    const next = tree.children[i + 1];
    if (next?.type !== 'code') throw new Error(`README: the quick-start marker "${node.value}" is not followed by a code block`);
    blocks.push({ kind: marker[1] as Block['kind'], file: marker[2] || undefined, code: next.value });
  });
  return blocks;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

let work: string;
let site: string;
let tarball: string;
let browser: Browser;
let env: NodeJS.ProcessEnv;
let sitePort: number;
const started: { child: ChildProcess; output: () => string }[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'support-chat-quick-start-'));
  tarball = pack(work).tarball;
  site = join(work, 'acme-help');
  // A site owner's own help center: four pages in ./docs.
  mkdirSync(join(site, 'docs', 'account'), { recursive: true });
  writeFileSync(join(site, 'docs', 'billing.md'), '# Billing\n\n## Refunds\n\nA refund is issued to your card within 14 days of your request. Ask for one from Settings → Billing.\n\n## Invoices\n\nInvoices are emailed on the first day of each month.\n');
  writeFileSync(join(site, 'docs', 'shipping.md'), '# Shipping\n\nOrders ship within two working days. International delivery takes 5 to 10 days.\n');
  writeFileSync(join(site, 'docs', 'account', 'password.md'), '# Reset your password\n\nChoose "Forgot password" on the sign-in page; the link we email you works for one hour.\n');
  writeFileSync(join(site, 'docs', 'account', 'delete.md'), '# Delete your account\n\nSettings → Account → Delete removes your data within 30 days.\n');
  sitePort = await freePort();
  const apiPort = await freePort();
  env = { ...process.env, PORT: String(sitePort), SUPPORT_CHAT_API_PORT: String(apiPort), SUPPORT_CHAT_API_URL: `http://127.0.0.1:${apiPort}`, SUPPORT_CHAT_WEBHOOK_URL: `http://127.0.0.1:${sitePort}/escalations` };
  for (const key of Object.keys(env)) if (/^SUPPORT_CHAT_(DATA|DATABASE_URL|ORG|BASE_URL|TOKEN|REDIS_URL|LLM_|ALLOW_LOCAL_TARGETS)/.test(key)) delete env[key];
  browser = await launch();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  for (const { child } of started) {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
  }
  await Promise.all(started.map(({ child }) => (child.exitCode !== null ? undefined : new Promise((r) => child.once('exit', r)))));
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs one line of a `run` block as a shell would, in the site's folder. */
function runLine(line: string): void {
  if (line === 'npm install support-chat-kit') {
    const result = spawnSync('npm', [...installArgs(tarball), '--no-audit', '--no-fund', '--loglevel=error'], { cwd: site, encoding: 'utf8', env });
    expect(result.status, result.stderr).toBe(0);
    finishInstall(site);
    return;
  }
  const result = spawnSync(line, { cwd: site, encoding: 'utf8', env, shell: true });
  expect(result.status, `${line}\n${result.stderr}`).toBe(0);
}

/** Starts one command of a `start` block and waits until it prints the address it serves. */
async function startLine(line: string): Promise<void> {
  const child = spawn(line, { cwd: site, env, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  started.push({ child, output: () => out });
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/https?:\/\/(127\.0\.0\.1|localhost):\d+/.test(out)) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`${line} exited ${child.exitCode}:\n${out}`));
      }
    }, 100);
  });
}

describe("the README's quick start", () => {
  it('runs as printed, and the page answers from the docs with working source links and escalates by webhook', async () => {
    const blocks = quickStartBlocks();
    expect(blocks.map((b) => b.kind)).toEqual(['run', 'start', 'start', 'file']);
    for (const block of blocks) {
      const lines = block.code.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
      if (block.kind === 'run') for (const line of lines) runLine(line);
      else if (block.kind === 'start') for (const line of lines) await startLine(line);
      // The file the README shows is the one init wrote, whole.
      else expect(readFileSync(join(site, block.file!), 'utf8').trimEnd()).toBe(block.code.trimEnd());
    }

    // The languages the widget loads on demand, served next to its script as server.mjs does.
    const french = await fetch(`http://localhost:${sitePort}/locales/fr.js`);
    expect(french.status).toBe(200);
    expect(await french.text()).toContain('Ouvrir le chat');
    // And the Markdown parser, which the widget loads when the panel opens.
    const markdown = await fetch(`http://localhost:${sitePort}/markdown.js`);
    expect(markdown.status).toBe(200);
    expect(await markdown.text()).toContain('parseMarkdown');
    // And the search, which it loads when the panel opens or ⌘K is pressed.
    const search = await fetch(`http://localhost:${sitePort}/search.js`);
    expect(search.status).toBe(200);
    expect(await search.text()).toContain('attachSearch');

    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.goto(`http://localhost:${sitePort}/`);
    await page.locator('[part~="launcher"]').click();
    const input = page.locator('[part~="input"]');
    await input.fill('How long does a refund take?');
    await input.press('Enter');
    const answer = page.locator('[part~="message"][data-role="assistant"]').last();
    const source = answer.locator('[part~="source"]').first();
    await source.waitFor({ timeout: 30_000 });
    expect(await answer.textContent()).toContain('14 days');
    // The --base-url of the README: GitHub serves the Markdown file under its own name.
    expect(await source.getAttribute('href')).toMatch(/^https:\/\/github\.com\/acme\/app\/blob\/main\/docs\/billing\.md(#|$)/);

    await page.getByRole('button', { name: /talk to a human/i }).click();
    const form = page.locator('[part~="escalation-form"]');
    await form.getByLabel(/name/i).fill('Ada Lovelace');
    await form.getByLabel(/email/i).fill('ada@example.com');
    await form.getByRole('button', { name: /send|submit|request/i }).click();
    await page.locator('[part~="ticket"]').waitFor({ timeout: 30_000 });
    const web = started.at(-1)!;
    await expect.poll(() => web.output(), { timeout: 10_000 }).toContain('Escalation from Ada Lovelace <ada@example.com>');
    expect(problems).toEqual([]);
    await context.close();
  });
});
