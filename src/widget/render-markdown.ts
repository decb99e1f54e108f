/**
 * @module Answers as Markdown, loaded on demand: the parser, its templates (templates/markdown.ts) and
 * the announcement's sentence (announce.ts) are their own module next to the bundle (dist/markdown.js),
 * loaded by `loadMarkdown` when a panel first shows; until it is there an answer shows as plain text.
 */
import { html, type TemplateResult } from 'lit';
import type { RenderOptions } from './templates/markdown.js';

export type { RenderOptions };

type Parser = typeof import('./markdown-module.js');

// Read while the script runs: in the classic-script build this is `document.currentScript`'s URL.
const BASE = import.meta.url;
let parser: Parser | undefined;
let loading: Promise<void> | undefined;
let settled = false;

/** Loads the Markdown parser (once; a failed load leaves answers as plain text and is not retried). */
export function loadMarkdown(): Promise<void> {
  // The source as tests run it unbundled; the build emits .js and points here (scripts/emit-module.mjs).
  return (loading ??= import(/* @vite-ignore */ new URL('markdown-module.ts', BASE).href).then(
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

/** The first sentence of an answer's prose, for the live region (announce.ts); undefined until the module has loaded. */
export function answerSentence(markdown: string): string | undefined {
  return parser?.firstSentence(markdown, parser.parseMarkdown);
}

/** Gives `root` (the element's shadow root) the styles of rendered Markdown, once the parser has loaded. */
export function adoptMarkdownStyles(root: Node): void {
  parser?.adoptStyles(root);
}

/** Renders Markdown text as Lit templates; as plain text until the parser has loaded (the load starts here). */
export function renderMarkdown(source: string, options: RenderOptions): TemplateResult {
  if (!parser) {
    void loadMarkdown();
    return html`<p class="plain">${source}</p>`;
  }
  return parser.renderParsed(source, options);
}
