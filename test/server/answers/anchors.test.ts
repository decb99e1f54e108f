import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchorTexts, MAX_ANCHORS_PER_SECTION, pageKey, type LinkedSection } from '../../../src/server/knowledge/ranking/anchors.js';
import { MAX_LINK_CONTEXT_WORDS, MAX_SECTION_LINKS } from '../../../src/server/knowledge/ingest/passage.js';
import { passageOfMarkdown } from '../../../src/server/knowledge/ingest/stored-passage.js';
import { openTestEngine } from '../../helpers/answer-engine.js';
import { turnsDuring } from '../../helpers/event-loop.js';

/** A doc section as the index holds it, its passage made from its Markdown as ingest makes it. */
const doc = (url: string, body = ''): LinkedSection => ({ url, docKey: url.split('#')[0]!, kind: 'doc', body, passage: passageOfMarkdown(body) });
/** The same section as stored before passages kept their links. */
const stored = (url: string, body: string): LinkedSection => {
  const { links: _, ...passage } = passageOfMarkdown(body);
  return { url, docKey: url, kind: 'doc', body, passage };
};

describe('anchor text', () => {
  it('reads one page by its every address: with .md or .html, with a trailing slash or index, without a fragment', () => {
    const same = ['https://d.test/docs/billing', 'https://d.test/docs/billing.md', 'https://d.test/docs/billing/', 'https://d.test/docs/billing/index.html', 'https://d.test/docs/billing.mdx?x=1#faq'];
    expect(new Set(same.map(pageKey))).toEqual(new Set(['https://d.test/docs/billing']));
    expect(pageKey('https://d.test/docs/billing-faq')).not.toBe(pageKey('https://d.test/docs/billing'));
    expect(pageKey('not an address')).toBeNull();
  });

  it('gives a linked section the list item, table row or short paragraph its link stands in, and the link alone from a long paragraph', async () => {
    const long = `${'Many words stand here before it. '.repeat(MAX_LINK_CONTEXT_WORDS / 5)}See [the export guide](https://d.test/export) for more.`;
    const sections = [
      doc('https://d.test/settings', '- [Transfer ownership](https://d.test/transfer.md): hand over account control when someone leaves'),
      doc('https://d.test/data', '| Need | Where |\n| --- | --- |\n| Download data for a spreadsheet | [CSV export](https://d.test/export#csv) |'),
      doc('https://d.test/intro', `Read [what we store](https://d.test/privacy/) before you start.\n\n${long}`),
      doc('https://d.test/transfer'),
      doc('https://d.test/export'),
      doc('https://d.test/export#csv'),
      doc('https://d.test/privacy'),
    ];
    const anchors = await anchorTexts(sections);
    expect(anchors[3]).toBe('Transfer ownership: hand over account control when someone leaves');
    // A link to a heading is its section's; the page's first section holds the link to the page.
    expect(anchors[5]).toBe('Download data for a spreadsheet CSV export');
    expect(anchors[4]).toBe('the export guide');
    expect(anchors[6]).toBe('Read what we store before you start.');
    expect(anchors.slice(0, 3)).toEqual(['', '', '']);
  });

  it('leaves out a section’s links to itself, links to no section, and anchors past the limit', async () => {
    const many = Array.from({ length: MAX_ANCHORS_PER_SECTION + 5 }, (_, i) => doc(`https://d.test/p${i}`, `- [Home](https://d.test/home): reason ${i}`));
    const sections = [doc('https://d.test/home', 'Back to [the top](https://d.test/home#top) or [elsewhere](https://other.test/home).'), ...many];
    const anchors = await anchorTexts(sections);
    expect(anchors[0]!.split(' \n ')).toHaveLength(MAX_ANCHORS_PER_SECTION);
    expect(anchors[0]).not.toContain('the top');
    expect(anchors[0]).not.toContain('elsewhere');
  });

  it('keeps a section’s first links, and reads a passage stored without them from its Markdown', async () => {
    const list = Array.from({ length: MAX_SECTION_LINKS + 50 }, (_, i) => `- [Page ${i}](https://d.test/t${i})`).join('\n');
    expect(passageOfMarkdown(list).links).toHaveLength(MAX_SECTION_LINKS);
    expect(passageOfMarkdown('No links here, [not one].').links).toBeUndefined();
    const anchors = await anchorTexts([stored('https://d.test/a', '- [Billing](https://d.test/billing.md): change your card'), doc('https://d.test/billing')]);
    expect(anchors[1]).toBe('Billing: change your card');
  });

  it('reads thousands of sections’ links, deeply nested, with turns of the event loop between', async () => {
    const nested = Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i % 30)}- [x](https://d.test/t${i % 7})`).join('\n');
    const sections = [...Array.from({ length: 60 }, (_, i) => stored(`https://d.test/s${i}`, nested)), ...Array.from({ length: 2_000 }, (_, i) => doc(`https://d.test/d${i}`, `Page ${i}: see [t](https://d.test/t${i % 7}) and [d](https://d.test/d${i + 1}).`)), ...Array.from({ length: 7 }, (_, i) => doc(`https://d.test/t${i}`))];
    const { result, turns } = await turnsDuring(() => anchorTexts(sections));
    expect(result.at(-1)!.split(' \n ')).toHaveLength(MAX_ANCHORS_PER_SECTION);
    expect(result[61]).toBe('Page 0: see t and d.');
    expect(turns).toBeGreaterThan(3);
  });
});

describe('anchor text in the ranking', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** An engine over a folder of Markdown pages (name → text), ingested under https://docs.example.com/. */
  async function siteOf(pages: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-anchors-'));
    dirs.push(dir);
    for (const [name, body] of Object.entries(pages)) writeFileSync(join(dir, `${name}.md`), body);
    const engine = await openTestEngine();
    await engine.ingest('acme', [dir], { baseUrl: 'https://docs.example.com/' });
    return engine;
  }

  it('finds a page by the words another page describes it in', async () => {
    const engine = await siteOf({
      'account-settings': '# Account settings\n\nWhat you can change in your account.\n\n- [Transfer account ownership](transfer-account-ownership.md): hand over account control when someone leaves your organization\n- [Change your email](change-email.md): use another address to sign in\n',
      'transfer-account-ownership': '# Transfer account ownership\n\nInvite the new owner as an admin, then make them the owner from the team page. The previous owner becomes an admin.\n',
      'change-email': '# Change your email\n\nEnter the new address and confirm the link we send to it.\n',
      leaving: '# When an employee leaves\n\nRemove their access from the team page so they no longer see your dashboards.\n',
    });
    // The page itself says none of these words: the settings page's link to it does.
    const hits = await engine.search('acme', 'hand over control when someone leaves');
    expect(hits.map((hit) => hit.section.url.split('/').pop())).toEqual(['account-settings', 'transfer-account-ownership', 'leaving']);
  });

  it('lists a page found by what other pages call it among an answer’s sources, though it has nothing to quote for the question’s words', async () => {
    const engine = await siteOf({
      'data-access': '# Accessing your data\n\nThere are two ways to take your numbers elsewhere.\n\n| I want to | Option |\n| --- | --- |\n| Download data for a spreadsheet | [CSV export](export-stats.md) |\n| Query data from code | [Stats API](stats-api.md) |\n\n## Learn more\n\n- [Spreadsheets of your stats](export-stats.md)\n',
      'export-stats': '# Export stats\n\nOpen the dashboard menu and choose **Export**. The download holds one file per report.\n',
      'stats-api': '# Stats API\n\nCreate a key in your account settings and send requests with it.\n',
    });
    const answer = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: 'i want a spreadsheet of my stats', sources: [] }], signal: new AbortController().signal });
    expect(answer.isUncertain).toBe(false);
    expect(answer.content).toContain('Download data for a spreadsheet');
    expect(answer.content).not.toContain('Open the dashboard menu');
    // A section of links ("Learn more") is no source: its words are those of the pages it links to.
    expect(answer.sources.map((source) => source.url.split('/').pop())).toEqual(['data-access', 'export-stats']);
  });
});
