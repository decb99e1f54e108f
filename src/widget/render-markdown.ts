/**
 * @module Markdown AST to Lit templates: every piece of text is a text binding, so nothing is ever parsed
 * as HTML. Hand-written with the parser (see markdown.ts for why no library): a library's HTML string
 * would need `innerHTML`, which the strict CSP and Trusted Types forbid. The parser is its own module
 * next to the bundle (dist/markdown.js), loaded by `loadMarkdown` when a panel first shows; until it
 * is there an answer shows as plain text.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { Block, Inline } from './markdown.js';
import { safeUrl } from './safe-url.js';

type Parser = typeof import('./markdown.js');

// Read while the script runs: in the classic-script build this is `document.currentScript`'s URL.
const BASE = import.meta.url;
let parser: Parser | undefined;
let loading: Promise<void> | undefined;
let settled = false;

/** Loads the Markdown parser (once; a failed load leaves answers as plain text and is not retried). */
export function loadMarkdown(): Promise<void> {
  // The source as tests run it unbundled; the build emits .js and points here (scripts/emit-locales.mjs).
  return (loading ??= import(/* @vite-ignore */ new URL('markdown.ts', BASE).href).then(
    (m: Parser) => void (parser = m),
    () => undefined,
  ).finally(() => void (settled = true)));
}

/** The parser's load while it is under way, else undefined. */
export function markdownLoading(): Promise<void> | undefined {
  return settled ? undefined : loading;
}

/** The event-stream parser's factory (it travels with the Markdown parser), loaded on demand; undefined when it cannot load. */
export async function loadEventStreamParser(): Promise<Parser['createParser'] | undefined> {
  await loadMarkdown();
  return parser?.createParser;
}

/** The loaded parser, or undefined before it has loaded. */
export function markdownParser(): Parser['parseMarkdown'] | undefined {
  return parser?.parseMarkdown;
}

export interface RenderOptions {
  copyLabel: string;
  /** Shown on the copy button for a moment after copying. */
  copiedLabel: string;
  imageLabel: string;
  /** A code block's accessible name, from its language ('' when it has none). */
  codeLabel(lang: string): string;
  /** The source an `[n]` marker cites, with the marker's label; null when there is no such source. */
  cite?(n: number): { href: string; label: string } | null;
  onCopy(text: string, button: HTMLButtonElement): void;
  onLink?(href: string): void;
}

function link(href: string, content: unknown, options: RenderOptions): TemplateResult {
  const url = safeUrl(href);
  if (!url) return html`${content}`;
  return html`<a href=${url} target="_blank" rel="noopener noreferrer" @click=${() => options.onLink?.(url)}>${content}</a>`;
}

/** Text, with each `[n]` marker that names a source turned into a link to it. */
function citations(text: string, options: RenderOptions): unknown {
  if (!options.cite || !/\[\d/.test(text)) return text;
  const parts: unknown[] = [];
  let last = 0;
  for (const match of text.matchAll(/\[(\d{1,2})\]/g)) {
    const source = options.cite(Number(match[1]));
    if (!source) continue;
    parts.push(text.slice(last, match.index));
    parts.push(html`<a class="cite" href=${source.href} target="_blank" rel="noopener noreferrer" aria-label=${source.label} @click=${() => options.onLink?.(source.href)}>${match[1]}</a>`);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

/** Emphasis nested deeper than this renders as its text (`*`×8,000 would otherwise nest 4,000 elements). */
const MAX_INLINE_DEPTH = 16;

function inline(nodes: Inline[], options: RenderOptions, depth = 0): unknown[] {
  if (depth > MAX_INLINE_DEPTH) return [parser!.inlineText(nodes)];
  return nodes.map((node) => {
    if (typeof node === 'string') return citations(node, options);
    switch (node.t) {
      case 'code':
        return html`<code>${node.text}</code>`;
      case 'strong':
        return html`<strong>${inline(node.c, options, depth + 1)}</strong>`;
      case 'em':
        return html`<em>${inline(node.c, options, depth + 1)}</em>`;
      case 'br':
        return html`<br />`;
      case 'link':
        return link(node.href, inline(node.c, options, depth + 1), options);
      case 'image':
        // Images in answers are never fetched: they become links the reader may choose to open.
        return link(node.href, `${options.imageLabel}: ${node.alt || node.href}`, options);
    }
  });
}

function block(node: Block, options: RenderOptions): TemplateResult {
  switch (node.t) {
    case 'p':
      return html`<p>${inline(node.c, options)}</p>`;
    case 'h': {
      // Answer headings are styled as strong paragraphs so they do not break the page's heading outline.
      return html`<p class="heading" data-level=${node.level}><strong>${inline(node.c, options)}</strong></p>`;
    }
    case 'code': {
      const label = options.codeLabel(node.lang);
      return html`<div class="code" role="group" aria-label=${label}>
        ${node.lang ? html`<span class="lang" aria-hidden="true">${node.lang}</span>` : nothing}
        <pre tabindex="0"><code data-lang=${node.lang || nothing}>${node.text}</code></pre>
        <button type="button" class="copy" part="copy-button" data-done=${options.copiedLabel} @click=${(e: Event) => options.onCopy(node.text, e.currentTarget as HTMLButtonElement)}>
          <span>${options.copyLabel}</span>
        </button>
      </div>`;
    }
    case 'quote':
      return html`<blockquote>${node.c.map((b) => block(b, options))}</blockquote>`;
    case 'list': {
      const items = node.items.map((item) => html`<li>${item.map((b) => block(b, options))}</li>`);
      return node.ordered ? html`<ol start=${node.start}>${items}</ol>` : html`<ul>${items}</ul>`;
    }
    case 'table':
      return html`<div class="table" tabindex="0" role="group" aria-label="Table">
        <table>
          <thead>
            <tr>${node.head.map((cell, i) => html`<th scope="col" class=${node.align[i] ?? nothing}>${inline(cell, options)}</th>`)}</tr>
          </thead>
          <tbody>
            ${node.rows.map((row) => html`<tr>${row.map((cell, i) => html`<td class=${node.align[i] ?? nothing}>${inline(cell, options)}</td>`)}</tr>`)}
          </tbody>
        </table>
      </div>`;
    case 'hr':
      return html`<hr />`;
  }
}

/** Parses kept, by text: every render of the panel (each keystroke in the composer) re-renders every answer. */
const parsed = new Map<string, Block[]>();
/** Answers kept parsed, the least recently shown dropped first (a conversation shows a few dozen). */
const MAX_PARSED = 200;

function parse(source: string, parseMarkdown: Parser['parseMarkdown']): Block[] {
  let blocks = parsed.get(source);
  if (blocks) parsed.delete(source);
  else blocks = parseMarkdown(source);
  parsed.set(source, blocks);
  if (parsed.size > MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  return blocks;
}

/** Renders Markdown text as Lit templates; as plain text until the parser has loaded (the load starts here). */
export function renderMarkdown(source: string, options: RenderOptions): TemplateResult {
  if (!parser) {
    void loadMarkdown();
    return html`<p class="plain">${source}</p>`;
  }
  return html`${parse(source, parser.parseMarkdown).map((b) => block(b, options))}`;
}
