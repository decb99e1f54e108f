/**
 * @module An indexed page as the Markdown the MCP tool `read_page` answers: its title, its headings
 * and their blocks as the passage model stored them at ingest (see knowledge/text/passage.ts), bounded.
 */
import { blockquote, type IndexedPage, type PassageBlock } from '../knowledge/index.js';

/**
 * The most characters of a page `read_page` answers: a long reference page stays within what an
 * agent's context can take beside its work (about 25,000 tokens).
 */
export const PAGE_MAX_CHARS = 100_000;

/** Separates a heading's place from the one above it in a section's `context` (see ingest/markdown.ts). */
const PATH_SEPARATOR = ' › ';

/**
 * The page as Markdown: `# title`, then each section under a heading as deep as its place on the
 * page (its `context` path), and its blocks in page order (code fenced, a heading inside the
 * section one level below the section's). Cut at `PAGE_MAX_CHARS` with a line that says so.
 *
 * @example
 * pageMarkdown({ url, title: 'Install', sections: [{ title: 'Windows', context: 'Install', passage: { lang: 'en', blocks: [{ kind: 'paragraph', text: 'Run the installer.', … }] }, … }] });
 * // { markdown: '# Install\n\nSource: …\n\n## Windows\n\nRun the installer.', truncated: false }
 */
export function pageMarkdown(page: IndexedPage, maxChars = PAGE_MAX_CHARS): { markdown: string; truncated: boolean } {
  const parts = [`# ${page.title}`, `Source: ${page.url}`];
  for (const section of page.sections) {
    // The page's opening is under its title; every other section under its own heading.
    const opening = section.url === page.url && section.title === page.title;
    const depth = opening ? 1 : Math.min(6, section.context.split(PATH_SEPARATOR).length + 1);
    if (!opening) parts.push(`${'#'.repeat(depth)} ${section.title}`);
    for (const block of section.passage.blocks) {
      const markdown = blockMarkdown(block, depth);
      if (markdown) parts.push(markdown);
    }
  }
  const markdown = parts.join('\n\n');
  if (markdown.length <= maxChars) return { markdown, truncated: false };
  const note = `\n\n[The page was cut here: it has ${markdown.length.toLocaleString('en-US')} characters, ${maxChars.toLocaleString('en-US')} are shown.]`;
  let end = maxChars - note.length;
  // Never half of a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(markdown[end - 1] ?? '')) end--;
  return { markdown: markdown.slice(0, end) + note, truncated: true };
}

/** A block as Markdown: its stored text, code fenced, a quote's lines marked, a heading one level below `depth`. */
function blockMarkdown(block: PassageBlock, depth: number): string {
  if (block.kind === 'code') return block.text.trim() ? fenced(block.text, block.lang ?? '') : '';
  const text = block.text.trim();
  if (!text) return '';
  if (block.kind === 'heading') return `${'#'.repeat(Math.min(6, depth + 1))} ${text.replace(/\s+/g, ' ')}`;
  if (block.kind === 'quote') return blockquote(text);
  return text;
}

/** Code in a fence longer than any run of backticks inside it (CommonMark's rule), so it cannot close early. */
function fenced(code: string, lang: string): string {
  let longest = 0;
  let run = 0;
  for (const char of code) {
    run = char === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${code.replace(/\n+$/, '')}\n${fence}`;
}
