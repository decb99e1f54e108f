/**
 * @module What dist/markdown.js holds, the module loaded when a panel first shows (render-markdown.ts):
 * the Markdown parser, its templates, the first sentence of an answer that the live region says,
 * and the event-stream parser streamed answers are read with.
 * Built apart from the bundle with a stand-in for Lit's `html` (scripts/emit-module.mjs).
 */
export { createParser, inlineText, parseMarkdown } from './markdown.js';
export { renderParsed } from './templates/markdown.js';
export { firstSentence } from './announce.js';
export { adoptStyles } from './markdown.styles.js';
