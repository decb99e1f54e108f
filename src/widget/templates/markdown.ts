/**
 * @module Markdown AST to Lit templates: every piece of text is a text binding, so nothing is ever
 * parsed as HTML (a library's HTML string would need `innerHTML`, which the strict CSP and Trusted
 * Types forbid). Part of the module loaded on demand (dist/markdown.js, see ../render-markdown.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { inlineText, parseMarkdown, type Block, type Inline } from '../markdown.js';
import { safeUrl } from '../safe-url.js';

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
  if (depth > MAX_INLINE_DEPTH) return [inlineText(nodes)];
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

function parse(source: string): Block[] {
  let blocks = parsed.get(source);
  if (blocks) parsed.delete(source);
  else blocks = parseMarkdown(source);
  parsed.set(source, blocks);
  if (parsed.size > MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  return blocks;
}

/** Renders Markdown text as Lit templates (parsed once per text, see `parse`). */
export function renderParsed(source: string, options: RenderOptions): TemplateResult {
  return html`${parse(source).map((b) => block(b, options))}`;
}
