/**
 * Docs search names as many pages as it is asked for: sections are read until `limit` pages are
 * named (or no more match), however many of the best sections crowd a few pages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { searchDocs } from '../../../src/server/knowledge/search.js';
import { openTestEngine } from '../../helpers/answer-engine.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Two pages of 40 sections each about webhooks (the best matches by far), and `others` pages
 * that mention webhooks once, in passing, in a longer text.
 */
function crowdedDocs(others: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-search-pages-'));
  dirs.push(dir);
  for (const name of ['webhooks', 'webhook-events']) {
    const sections = Array.from({ length: 40 }, (_, i) => `## Webhook retries ${i}\n\nWebhook deliveries are retried: webhook ${i} is sent again.\n`);
    writeFileSync(join(dir, `${name}.md`), `# Webhooks ${name}\n\n${sections.join('\n')}`);
  }
  for (let p = 0; p < others; p++) {
    writeFileSync(
      join(dir, `guide-${p}.md`),
      `# Guide ${p}\n\n## Topic ${p}\n\nThis guide explains projects, members, billing, invoices, exports and settings in detail; a webhook can tell your app when something changes.\n`,
    );
  }
  return dir;
}

describe('searchDocs: a full page list', () => {
  it('names `limit` pages when the best sections crowd two pages', async () => {
    const engine = await openTestEngine({ embedder: null });
    await engine.ingest('acme', [crowdedDocs(12)], { baseUrl: 'https://docs.acme.test/' });
    const results = await searchDocs(engine, 'acme', 'webhook', { limit: 10 });
    const pages = new Set(results.map((r) => r.url.replace(/#.*$/, '')));
    expect(results).toHaveLength(10);
    expect(pages.size).toBe(10);
    // The crowded pages' best sections still lead.
    expect(results[0]!.url).toMatch(/\/webhook/);
    expect(results[1]!.url).toMatch(/\/webhook/);
  });

  it('answers every page there is, three sections at most of one, when fewer pages match than asked', async () => {
    const engine = await openTestEngine({ embedder: null });
    await engine.ingest('acme', [crowdedDocs(3)], { baseUrl: 'https://docs.acme.test/' });
    const results = await searchDocs(engine, 'acme', 'webhook', { limit: 20 });
    const perPage = new Map<string, number>();
    for (const r of results) perPage.set(r.url.replace(/#.*$/, ''), (perPage.get(r.url.replace(/#.*$/, '')) ?? 0) + 1);
    expect(perPage.size).toBe(5);
    expect(Math.max(...perPage.values())).toBe(3);
    // Each page's best section before any page's second.
    expect(new Set(results.slice(0, 5).map((r) => r.url.replace(/#.*$/, ''))).size).toBe(5);
  });
});
