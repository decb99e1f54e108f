/**
 * @module HTML pages, read by parse5 as a browser would: the main content alone (the site's chrome
 * dropped), turned into mdast by hast-util-to-mdast, one section per h1–h3 anchored by its `id`.
 */
import type { Element, ElementContent, Root as HastRoot, RootContent as HastContent } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { selectAll } from 'hast-util-select';
import { defaultHandlers, toMdast, type Handle } from 'hast-util-to-mdast';
import type { Root, RootContent } from 'mdast';
import { parse } from 'parse5';
import { htmlText } from './html-text.js';
import { blocksText, pieces, type HeadingPiece } from './mdast-text.js';
import { pageName, type ParsedFile, type Section } from './sections.js';
import { Anchors } from './slug.js';
import { parseText } from './text.js';

/** How a site's owner tells what of a page is its content. */
export interface ContentOptions {
  /** A CSS selector for the page's content (every match is read); by default the page's `main`/`article`. */
  contentSelector?: string;
  /** CSS selectors of parts of the content to leave out, beside the chrome found by default. */
  excludeSelectors?: string[];
}

export interface HtmlOptions extends ContentOptions {
  url: string;
  fallbackTitle: string;
}

/** A page as the crawler reads it: its sections, and what it says about its address and its links. */
export interface HtmlPage extends ParsedFile {
  /** `<link rel="canonical">`, as written. */
  canonical: string | null;
  /** `<base href>`, as written. */
  base: string | null;
  /** Every `<a href>` of the page (chrome included: navigation is how pages are found), as written. */
  links: string[];
  /** `<meta name="robots">` says `noindex` (the page is not indexed) or `nofollow` (its links are not followed). */
  noindex: boolean;
  nofollow: boolean;
}

/** Where docs sites put a page's content, most specific first; the first that matches is the content. */
const CONTENT_SELECTORS = ['[data-support-chat-content]', 'main article', 'article', 'main', '[role=main]', '#content', '.content'];

/** Never content: scripts, forms and controls, and landmarks that are the site's chrome. */
const DROPPED_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'button', 'form', 'input', 'select', 'textarea', 'nav', 'footer', 'dialog']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'dialog', 'alertdialog', 'complementary']);
/** Words of a class or id that name chrome (`breadcrumbs`, `theme-doc-toc-desktop`, `cookie-banner`). */
const CHROME_WORDS = new Set(['breadcrumb', 'breadcrumbs', 'toc', 'sidebar', 'cookie', 'cookies', 'consent', 'gdpr', 'pagination', 'pager', 'navbar', 'navigation', 'footer', 'feedback', 'skip', 'announcement', 'banner', 'prev', 'next', 'previous', 'hash', 'copy', 'edit', 'rating', 'toolbar', 'search']);
/** The same, written as several words (`table-of-contents`, `on-this-page`). */
const CHROME_PHRASES = ['tableofcontents', 'onthispage', 'editthispage', 'wasthishelpful', 'wasthispagehelpful', 'lastupdated', 'prevnext', 'skiptocontent'];
/** Text that is chrome wherever it stands (a link or line that says only this). */
const CHROME_TEXT = ['edit this page', 'edit on github', 'was this page helpful', 'was this helpful', 'on this page', 'last updated', 'skip to main content', 'skip to content', 'copy page', 'previous', 'next'];

const words = (value: unknown): string[] => (Array.isArray(value) ? value.join(' ') : typeof value === 'string' ? value : '').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

/** Whether an element is the site's chrome by its tag, role, class or id. */
function isChrome(element: Element): boolean {
  if (DROPPED_TAGS.has(element.tagName)) return true;
  const props = element.properties;
  if (props.dataSupportChatExclude !== undefined) return true;
  if (props.ariaHidden === 'true') return true;
  if (typeof props.role === 'string' && CHROME_ROLES.has(props.role)) return true;
  // `aside` is kept: docs sites write notes and warnings in it; an aside of navigation is caught by its class or role.
  const named = [...words(props.className), ...words(props.id)];
  if (named.some((w) => CHROME_WORDS.has(w))) return true;
  const compact = named.join('');
  return CHROME_PHRASES.some((phrase) => compact.includes(phrase));
}

/** An element's own text (its text children alone), for the chrome phrases; bounded by the phrases' length. */
function ownText(element: Element): string {
  let text = '';
  for (const child of element.children) {
    if (child.type === 'text') text += child.value;
    else if (child.type === 'element' && (child.tagName === 'span' || child.tagName === 'strong' || child.tagName === 'a')) text += ownText(child);
    if (text.length > 40) return text;
  }
  return text;
}

function isChromeText(element: Element): boolean {
  if (!['a', 'p', 'span', 'div', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'time'].includes(element.tagName)) return false;
  const text = ownText(element).replace(/\s+/g, ' ').trim().toLowerCase().replace(/[?:.!»«›‹→←]+/g, '').trim();
  return text.length > 0 && text.length <= 40 && CHROME_TEXT.some((phrase) => text === phrase || (phrase.length > 8 && text.startsWith(phrase)));
}

/** The elements to leave out, found once: the owner's exclusions and `data-support-chat-exclude`. */
function excluded(root: HastRoot, options: ContentOptions): Set<Element> {
  const out = new Set<Element>(selectAll('[data-support-chat-exclude]', root));
  for (const selector of options.excludeSelectors ?? []) for (const element of selectAll(selector, root)) out.add(element);
  return out;
}

/** A copy of the content without chrome and exclusions; `pre` elements marked with their language. */
function clean<T extends HastRoot | Element>(node: T, skip: Set<Element>): T {
  const children: ElementContent[] = [];
  for (const child of node.children as HastContent[]) {
    if (child.type === 'comment' || child.type === 'doctype') continue;
    if (child.type !== 'element') {
      children.push(child as ElementContent);
      continue;
    }
    if (skip.has(child) || isChrome(child) || isChromeText(child)) continue;
    const copy = clean(child, skip);
    if (copy.tagName === 'pre') copy.properties = { ...copy.properties, dataSupportChatLang: codeLanguage(child) };
    children.push(copy);
  }
  return { ...node, children };
}

/** A code block's language, as docs sites mark it: `language-x` on the `code` or `pre` (or their wrapper), or `data-language`. */
function codeLanguage(pre: Element): string {
  const candidates: Element[] = [pre, ...pre.children.filter((c): c is Element => c.type === 'element' && c.tagName === 'code')];
  for (const element of candidates) {
    const data = element.properties.dataLanguage ?? element.properties.dataLang;
    if (typeof data === 'string' && data) return data;
    for (const name of Array.isArray(element.properties.className) ? element.properties.className : []) {
      const value = String(name);
      if (value.startsWith('language-') && value.length > 9) return value.slice(9);
      if (value.startsWith('lang-') && value.length > 5) return value.slice(5);
    }
  }
  return '';
}

/** Headings keep their `id` (the anchor visitors' links point at); code blocks their language. */
const headingHandler: Handle = (state, node) => {
  const heading = defaultHandlers.h1!(state, node) as RootContent;
  const id = (node as Element).properties.id;
  if (typeof id === 'string' && id) heading.data = { ...heading.data, id } as typeof heading.data;
  return heading;
};
const preHandler: Handle = (state, node) => {
  const code = defaultHandlers.pre!(state, node) as RootContent & { lang?: string | null };
  const lang = (node as Element).properties.dataSupportChatLang;
  if (!code.lang && typeof lang === 'string' && lang) code.lang = lang;
  return code;
};
const HANDLERS = { h1: headingHandler, h2: headingHandler, h3: headingHandler, h4: headingHandler, h5: headingHandler, h6: headingHandler, pre: preHandler };

function textOf(node: HastRoot | Element | undefined): string {
  if (!node) return '';
  let out = '';
  for (const child of node.children as HastContent[]) {
    if (child.type === 'text') out += child.value;
    else if (child.type === 'element') out += textOf(child);
  }
  return out.replace(/\s+/g, ' ').trim();
}

function attribute(root: HastRoot, selector: string, name: string): string | null {
  const value = selectAll(selector, root)[0]?.properties[name];
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

/** The page's content: the owner's selector, else the first of `CONTENT_SELECTORS` found, else the body. */
function contentOf(root: HastRoot, options: ContentOptions): (HastRoot | Element)[] {
  if (options.contentSelector) return selectAll(options.contentSelector, root);
  for (const selector of CONTENT_SELECTORS) {
    const found = selectAll(selector, root);
    // The outermost matches: an `article` inside another is read with it.
    if (found.length > 0) return found.filter((el) => !found.some((other) => other !== el && contains(other, el)));
  }
  return selectAll('body', root);
}

function contains(ancestor: Element, node: Element): boolean {
  const stack: ElementContent[] = [...ancestor.children];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next === node) return true;
    if (next.type === 'element') stack.push(...next.children);
  }
  return false;
}

/** Reads an HTML page: its main content's sections, and its canonical address, links and robots directives. */
export function readHtml(html: string, options: HtmlOptions): HtmlPage {
  let root: HastRoot;
  try {
    root = fromParse5(parse(html)) as HastRoot;
  } catch (error) {
    // Tens of thousands of nested elements exhaust the stack: such a page is read as its text.
    if (error instanceof RangeError) return { ...parseText(htmlText(html), options), canonical: null, base: null, links: [], noindex: false, nofollow: false };
    throw error;
  }
  const robots = words(attribute(root, 'meta[name=robots]', 'content'));
  const links: string[] = [];
  for (const a of selectAll('a[href]', root)) if (typeof a.properties.href === 'string') links.push(a.properties.href);
  const meta = {
    canonical: attribute(root, 'link[rel=canonical]', 'href'),
    base: attribute(root, 'base[href]', 'href'),
    links,
    noindex: robots.includes('noindex') || robots.includes('none'),
    nofollow: robots.includes('nofollow') || robots.includes('none'),
  };
  try {
    return { ...sectionsOf(root, options), ...meta };
  } catch (error) {
    if (error instanceof RangeError) return { ...parseText(htmlText(html), options), ...meta };
    throw error;
  }
}

function sectionsOf(root: HastRoot, options: HtmlOptions): ParsedFile {
  const skip = excluded(root, options);
  const content: HastRoot = { type: 'root', children: contentOf(root, options).map((node) => clean(node.type === 'root' ? { type: 'element', tagName: 'div', properties: {}, children: node.children as ElementContent[] } : node, skip)) };
  const mdast = toMdast(content, { handlers: HANDLERS }) as Root;

  const h1 = selectAll('h1', content)[0];
  const pageTitle = textOf(h1) || textOf(selectAll('title', root)[0]);
  const title = pageTitle || pageName(options.fallbackTitle);

  // Sections by h1–h3: deeper headings are read as bold lines of their section.
  const blocks: { heading: (HeadingPiece & { anchor: string }) | null; content: RootContent[] }[] = [{ heading: null, content: [] }];
  const anchors = new Anchors();
  for (const piece of pieces(mdast.children)) {
    if ('block' in piece) {
      blocks.at(-1)!.content.push(piece.block);
      continue;
    }
    const heading = piece.heading;
    if (heading.depth > 3) {
      blocks.at(-1)!.content.push({ type: 'paragraph', children: [{ type: 'strong', children: [{ type: 'text', value: heading.text }] }] });
      continue;
    }
    // The page's h1 is its title: it has no anchor, and what follows it belongs to the page.
    if (heading.depth === 1) {
      if (blocks.length === 1 && blocksText(blocks[0]!.content).body === '') continue;
      blocks.push({ heading: { ...heading, anchor: '' }, content: [] });
      continue;
    }
    blocks.push({ heading: { ...heading, anchor: heading.id ?? anchors.next(heading.text) }, content: [] });
  }

  const sections: Section[] = [];
  for (const block of blocks) {
    const { body, code, lang } = blocksText(block.content, options.url);
    if (!body && code.length === 0 && !block.heading?.text) continue;
    sections.push({
      title: block.heading?.text || title,
      context: title,
      url: block.heading?.anchor ? `${options.url}#${block.heading.anchor}` : options.url,
      body,
      code: code.join('\n\n'),
      lang,
      kind: 'doc',
    });
  }
  return { title, sections };
}

/** An HTML file's sections (a page of a site exported to files: its canonical link is its address). */
export function parseHtml(html: string, options: HtmlOptions): ParsedFile {
  const page = readHtml(html, options);
  if (!page.canonical || !/^https?:\/\//i.test(page.canonical) || page.canonical === options.url) return { title: page.title, sections: page.sections };
  const canonical = page.canonical;
  return { title: page.title, sections: page.sections.map((s) => ({ ...s, url: canonical + s.url.slice(options.url.length) })) };
}
