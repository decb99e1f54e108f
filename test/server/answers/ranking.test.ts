import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestEngine } from '../../helpers/answer-engine.js';
import { turnsDuring } from '../../helpers/event-loop.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary docs folder and a writer of Markdown pages into it, one `## ` section per pair. */
function docsFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-rank-'));
  dirs.push(dir);
  const page = (name: string, title: string, sections: [string, string][]) =>
    writeFileSync(join(dir, `${name}.md`), `---\ntitle: ${title}\nurl: https://docs.example.com/${name}\n---\n\n${sections.map(([h, b]) => `## ${h}\n\n${b}\n`).join('\n')}`);
  return { dir, page };
}

describe('ranking', () => {
  it('reads a generic heading with the headings above it, and shows the section’s own title', async () => {
    const { dir, page } = docsFolder();
    page('exports', 'Data exports', [
      ['Overview', 'Exports of your data run every night and land in your bucket.'],
      ['Scheduling', 'Choose the hour the exports run.'],
      ['Examples', 'See the snippets below for a typical setup.'],
    ]);
    page('audit', 'Audit log', [
      ['Overview', 'Every change is recorded.'],
      ['Examples', 'Typical entries: a data export started, a data export finished, data exports listed.'],
    ]);
    const engine = await openTestEngine();
    await engine.ingest('acme', [dir]);
    const hits = await engine.search('acme', 'data exports examples');
    expect(hits[0]!.section.url).toBe('https://docs.example.com/exports#examples');
    expect(hits[0]!.section.title).toBe('Examples');
  });

  it('reads a source file’s page by its code: a question naming an identifier finds the file that defines it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-rank-code-'));
    dirs.push(dir);
    // A file of tests with no comment, read as one piece (it is no Rust): only its code names `issue92`.
    const body = Array.from({ length: 12 }, (_, i) => `    String value${i} = digest("Test123!", ${i});`);
    writeFileSync(join(dir, 'issues.rs'), ['public class IssuesTest {', '  @Test', '  public void issue92() {', ...body, '  }', '}'].join('\n'));
    // Files whose doc comments say "test method".
    for (const name of ['parser', 'lexer', 'printer', 'walker']) {
      writeFileSync(join(dir, `${name}.rs`), `/// Test method for the ${name}: each test method checks one case.\npub fn check_${name}(input: &str) -> bool {\n    input.len() > 0\n}\n`);
    }
    const engine = await openTestEngine();
    await engine.ingest('acme', [dir], { baseUrl: 'https://code.example.com/' });
    const hits = await engine.search('acme', 'What does the test method `issue92()` do?');
    expect(new URL(hits[0]!.section.url).pathname).toMatch(/\/issues\.rs$/);
  });

  it('cites the other sections of the answer’s page on their score, and sections elsewhere only when they match enough of the question', async () => {
    const { dir, page } = docsFolder();
    page('sheets', 'Spreadsheet add-on', [
      ['Workbook template', 'Copy the workbook template to start from a ready-made spreadsheet with sample prompts.'],
      ['Get started', 'Open the add-on menu, then paste your key.'],
    ]);
    page('billing', 'Billing', [['Invoices', 'Invoices are sent on the first of the month; open the menu to download them.']]);
    const engine = await openTestEngine();
    await engine.ingest('acme', [dir]);
    const question = 'How do I start quickly from a ready-made workbook template with sample prompts in the add-on menu?';
    const hits = await engine.search('acme', question);
    const urls = hits.map((h) => h.section.url);
    expect(urls.slice(0, 3)).toEqual(expect.arrayContaining(['https://docs.example.com/sheets#get-started', 'https://docs.example.com/billing#invoices']));
    const started = hits.find((h) => h.section.url.endsWith('#get-started'))!;
    const invoices = hits.find((h) => h.section.url.endsWith('#invoices'))!;
    // Both match about as little of the question; only the one on the answer's page is cited.
    expect(started.coverage).toBeLessThan(0.255);
    expect(invoices.coverage).toBeLessThan(0.255);
    const answer = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: question, sources: [] }], signal: new AbortController().signal });
    expect(answer.sources.map((s) => s.url)).toEqual(['https://docs.example.com/sheets#workbook-template', 'https://docs.example.com/sheets#get-started']);
  });
});

describe('index build', () => {
  it('lets other work run while a large knowledge base is indexed, and answers questions that arrive meanwhile alike', async () => {
    const { dir, page } = docsFolder();
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
    for (let p = 0; p < 40; p++) {
      page(`p${p}`, `Page ${p}`, Array.from({ length: 50 }, (_, s) => [`Topic ${p} ${s}`, `${Array.from({ length: 80 }, (_, k) => words[(p * 31 + s * 7 + k) % 400]).join(' ')}.`]));
    }
    // What is measured is the index build: the 2,000 sections are stored without sentence
    // embeddings (embedding them would take two minutes; ingest with embeddings is covered in semantic.test.ts).
    const engine = await openTestEngine({ embedder: null });
    await engine.ingest('acme', [dir]);
    const { result: [first, second], turns } = await turnsDuring(() => Promise.all([engine.search('acme', 'topic 3 word17'), engine.search('acme', 'topic 3 word17')]));
    // 2,000 sections of about 600 characters: several turns of the event loop went to other work.
    expect(turns).toBeGreaterThan(3);
    expect(first.map((h) => h.section.id)).toEqual(second.map((h) => h.section.id));
    expect(first[0]!.section.url).toMatch(/^https:\/\/docs\.example\.com\/p3#topic-3-/);
  });
});
