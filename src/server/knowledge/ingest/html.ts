/**
 * @module HTML pages, read by parse5 as a browser would: the main content alone (the site's chrome
 * dropped), turned into mdast by hast-util-to-mdast, one section per h1–h3 anchored by its `id`.
 */
import type { Element, ElementContent, Root as HastRoot, RootContent as HastContent } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { selectAll } from 'hast-util-select';
import { defaultHandlers, toMdast, type Handle } from 'hast-util-to-mdast';
import type { Root, RootContent } from 'mdast';
import { defaultTreeAdapter, parse, parseFragment, type DefaultTreeAdapterMap, type TreeAdapter } from 'parse5';
import { htmlText } from './html-text.js';
import { blocksText, pieces, type HeadingPiece } from './mdast-text.js';
import { pageName, type ParsedFile, type Section } from './sections.js';
import { Anchors } from './slug.js';
import { parseText } from './text.js';
import { passageOf } from './passage.js';

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
  /** Elements a page may have at most; a page over it is refused (`PageBudgetError`). @default MAX_ELEMENTS */
  maxElements?: number;
  /** How deep elements may nest at most; a page over it is refused. @default MAX_DEPTH */
  maxDepth?: number;
}

/** Elements per page at most: a long reference page has tens of thousands; more is not a page to read. */
export const MAX_ELEMENTS = 100_000;
/** Nesting depth at most (as Chromium's HTML parser, which flattens deeper trees): docs pages nest a few dozen deep. */
export const MAX_DEPTH = 512;

/** A page over the element or depth budget: refused while it is parsed, before anything costly is done with it. */
export class PageBudgetError extends Error {
  override name = 'PageBudgetError';
}

type Parse5Node = DefaultTreeAdapterMap['node'];

/** parse5's own tree, counting elements and their depth as it builds: the parse stops at the first over budget. */
function budgetedAdapter(maxElements: number, maxDepth: number): TreeAdapter<DefaultTreeAdapterMap> {
  let elements = 0;
  const depths = new WeakMap<Parse5Node, number>();
  const placed = (parent: Parse5Node, node: Parse5Node): void => {
    if (!('tagName' in node)) return;
    const depth = (depths.get(parent) ?? 0) + 1;
    if (depth > maxDepth) throw new PageBudgetError(`elements nested over ${maxDepth} deep`);
    depths.set(node, depth);
  };
  return {
    ...defaultTreeAdapter,
    createElement(tagName, namespaceURI, attrs) {
      if (++elements > maxElements) throw new PageBudgetError(`over ${maxElements.toLocaleString('en')} elements`);
      return defaultTreeAdapter.createElement(tagName, namespaceURI, attrs);
    },
    appendChild(parent, node) {
      placed(parent, node);
      defaultTreeAdapter.appendChild(parent, node);
    },
    insertBefore(parent, node, reference) {
      placed(parent, node);
      defaultTreeAdapter.insertBefore(parent, node, reference);
    },
  };
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

/** The elements the owner's selectors leave out, found once (`data-support-chat-exclude` is chrome, see `isChrome`). */
function excluded(root: HastRoot, options: ContentOptions): Set<Element> {
  const out = new Set<Element>();
  for (const selector of options.excludeSelectors ?? []) for (const element of selectAll(selector, root)) out.add(element);
  return out;
}

/** Inline elements that say nothing when they hold only blanks (an empty `<a href>`, `<span> </span>`). */
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd', 'label', 'mark', 'nobr', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var']);
const BLANK = /^[ \t\n\f\r]*$/;

/** Appends a text, joined to a text just before it: a run of texts is one node. */
function pushText(children: ElementContent[], value: string): void {
  const last = children.at(-1);
  if (last?.type === 'text') last.value += value;
  else children.push({ type: 'text', value });
}

/**
 * A copy of the content without chrome and exclusions; `pre` elements marked with their language.
 * Inline elements of blanks alone become their blanks, and neighbouring texts one text: the
 * whitespace pass of hast-util-to-mdast looks ahead over siblings that are neither text nor
 * block, so a run of thousands of empty `<a href>` cost it time growing with their square.
 */
function clean<T extends HastRoot | Element>(node: T, skip: Set<Element>): T {
  const children: ElementContent[] = [];
  let previous: Element | undefined;
  for (const child of node.children as HastContent[]) {
    const before = previous;
    if (child.type === 'element') previous = child;
    if (child.type === 'comment' || child.type === 'doctype') continue;
    if (child.type === 'text') {
      pushText(children, child.value);
      continue;
    }
    if (child.type !== 'element') {
      children.push(child as ElementContent);
      continue;
    }
    if (skip.has(child) || isChrome(child) || isChromeText(child) || isHeadingLink(child, node, before)) continue;
    const copy = clean(child, skip);
    if (copy.tagName === 'pre') copy.properties = { ...copy.properties, dataSupportChatLang: codeLanguage(child) };
    if (INLINE.has(copy.tagName) && copy.children.every((c) => c.type === 'text' && BLANK.test(c.value))) {
      const blanks = copy.children.map((c) => (c as { value: string }).value).join('');
      if (blanks) pushText(children, blanks);
      continue;
    }
    children.push(copy);
  }
  return { ...node, children };
}

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const idOf = (element: Element | HastRoot | undefined): unknown => (element?.type === 'element' && HEADINGS.has(element.tagName) ? element.properties.id : undefined);

/**
 * A heading's link to itself: a glyph or hidden text for sighted readers' mouse and screen
 * readers' ears, never content. Inside the heading (VitePress' `a.header-anchor` holding a
 * zero-width space, Docusaurus' `a.hash-link`) or right after it (Starlight's `a.sl-anchor-link`
 * with its visually hidden "Section titled …").
 */
function isHeadingLink(element: Element, parent: Element | HastRoot, before: Element | undefined): boolean {
  if (element.tagName !== 'a') return false;
  const href = element.properties.href;
  if (typeof href !== 'string' || !href.startsWith('#') || href.length < 2) return false;
  const target = href.slice(1);
  const id = idOf(parent) ?? idOf(before);
  return typeof id === 'string' && (id === target || id === safeDecode(target));
}

const safeDecode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/**
 * A page's `<title>` without the site's name after it ("Install | VitePress" → "Install"), as
 * the three generators and most sites write it; a title that is only the name is kept.
 */
function withoutSiteName(title: string): string {
  const cut = title.lastIndexOf(' | ');
  return cut > 0 ? title.slice(0, cut).trim() : title;
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
  if (typeof id === 'string' && id) heading.data = { ...heading.data, id } as unknown as typeof heading.data;
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

/**
 * Where docs sites put a page's content, most specific first; the first that matches is the
 * content: `[data-support-chat-content]`, `main article`, `article`, `main`, `[role=main]`,
 * `#content`, `.content`.
 */
const CONTENT_TESTS: ((element: Element, inMain: boolean) => boolean)[] = [
  (e) => e.properties.dataSupportChatContent !== undefined && e.properties.dataSupportChatContent !== null && e.properties.dataSupportChatContent !== false,
  (e, inMain) => inMain && e.tagName === 'article',
  (e) => e.tagName === 'article',
  (e) => e.tagName === 'main',
  (e) => e.properties.role === 'main',
  (e) => e.properties.id === 'content',
  (e) => Array.isArray(e.properties.className) && e.properties.className.includes('content'),
];

/** What a page says of itself and where its content is, found in one walk: CSS selectors over a deep tree cost its size times its depth. */
interface Landmarks {
  title: Element | undefined;
  robots: Element | undefined;
  canonical: Element | undefined;
  base: Element | undefined;
  body: Element[];
  /** Every `<a href>`'s address, as written. */
  links: string[];
  /** Per content selector, its outermost matches (one inside another is read with it). */
  content: Element[][];
}

function landmarksOf(root: HastRoot): Landmarks {
  const found: Landmarks = { title: undefined, robots: undefined, canonical: undefined, base: undefined, body: [], links: [], content: CONTENT_TESTS.map(() => []) };
  // Depth first in document order; each element with whether a `main` is above it, and which content selectors matched above it (bits).
  const stack: { node: Element; inMain: boolean; above: number }[] = [];
  const push = (children: HastContent[], inMain: boolean, above: number) => {
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]!;
      if (child.type === 'element') stack.push({ node: child, inMain, above });
    }
  };
  push(root.children, false, 0);
  while (stack.length > 0) {
    const { node, inMain, above } = stack.pop()!;
    const props = node.properties;
    if (node.tagName === 'title') found.title ??= node;
    else if (node.tagName === 'meta' && props.name === 'robots') found.robots ??= node;
    else if (node.tagName === 'link' && Array.isArray(props.rel) && props.rel.join(' ') === 'canonical') found.canonical ??= node;
    else if (node.tagName === 'base' && props.href !== undefined) found.base ??= node;
    else if (node.tagName === 'a' && typeof props.href === 'string') found.links.push(props.href);
    else if (node.tagName === 'body') found.body.push(node);
    let matched = above;
    CONTENT_TESTS.forEach((test, i) => {
      if (!test(node, inMain)) return;
      if ((above & (1 << i)) === 0) found.content[i]!.push(node);
      matched |= 1 << i;
    });
    push(node.children as HastContent[], inMain || node.tagName === 'main', matched);
  }
  return found;
}

const value = (element: Element | undefined, name: string): string | null => {
  const found = element?.properties[name];
  return typeof found === 'string' && found.trim() ? found.trim() : null;
};

/** The page's content: the owner's selector, else the first of `CONTENT_TESTS` found, else the body. */
function contentOf(root: HastRoot, landmarks: Landmarks, options: ContentOptions): (HastRoot | Element)[] {
  if (options.contentSelector) return selectAll(options.contentSelector, root);
  return landmarks.content.find((matches) => matches.length > 0) ?? landmarks.body;
}

/** The first h1, in document order. */
function firstH1(root: HastRoot): Element | undefined {
  const stack: HastContent[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element') continue;
    if (node.tagName === 'h1') return node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return undefined;
}

/**
 * Reads an HTML page: its main content's sections, and its canonical address, links and robots
 * directives. Throws `PageBudgetError` for a page over the element or depth budget.
 */
export function readHtml(html: string, options: HtmlOptions): HtmlPage {
  let root: HastRoot;
  try {
    root = fromParse5(parse(html, { treeAdapter: budgetedAdapter(options.maxElements ?? MAX_ELEMENTS, options.maxDepth ?? MAX_DEPTH) })) as HastRoot;
  } catch (error) {
    // Tens of thousands of nested elements exhaust the stack: such a page is read as its text.
    if (error instanceof RangeError) return { ...parseText(htmlText(html), options), canonical: null, base: null, links: [], noindex: false, nofollow: false };
    throw error;
  }
  const landmarks = landmarksOf(root);
  const robots = words(value(landmarks.robots, 'content'));
  const meta = {
    canonical: value(landmarks.canonical, 'href'),
    base: value(landmarks.base, 'href'),
    links: landmarks.links,
    noindex: robots.includes('noindex') || robots.includes('none'),
    nofollow: robots.includes('nofollow') || robots.includes('none'),
  };
  try {
    return { ...sectionsOf(root, landmarks, options), ...meta };
  } catch (error) {
    if (error instanceof RangeError) return { ...parseText(htmlText(html), options), ...meta };
    throw error;
  }
}

function sectionsOf(root: HastRoot, landmarks: Landmarks, options: HtmlOptions): ParsedFile {
  const skip = excluded(root, options);
  const content: HastRoot = { type: 'root', children: contentOf(root, landmarks, options).map((node) => clean(node.type === 'root' ? { type: 'element', tagName: 'div', properties: {}, children: node.children as ElementContent[] } : node, skip)) };
  const mdast = toMdast(content, { handlers: HANDLERS }) as Root;

  const pageTitle = textOf(firstH1(content)) || withoutSiteName(textOf(landmarks.title));
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
      passage: passageOf(block.content, { base: options.url }),
    });
  }
  return { title, sections };
}

/**
 * A Markdown page's block of raw HTML (`<p>…</p>`, `<ul><li>…</li></ul>`: pages of a Jekyll site
 * are often written so) as the Markdown it stands for: parsed by parse5 as a fragment and read by
 * hast-util-to-mdast, so its paragraphs, lists, tables and headings are blocks of their own, not
 * one run of text. Null when it is over the element or depth budget (it is then read as its text).
 */
export function htmlBlocks(html: string): RootContent[] | null {
  try {
    const fragment = fromParse5(parseFragment(html, { treeAdapter: budgetedAdapter(MAX_ELEMENTS, MAX_DEPTH) })) as HastRoot;
    return (toMdast(fragment, { handlers: HANDLERS }) as Root).children;
  } catch (error) {
    if (error instanceof PageBudgetError || error instanceof RangeError) return null;
    throw error;
  }
}

/**
 * An HTML file's sections (a page of a site exported to files: its canonical link is its address).
 * A file over the element or depth budget is read as its text.
 */
export function parseHtml(html: string, options: HtmlOptions): ParsedFile {
  let page: HtmlPage;
  try {
    page = readHtml(html, options);
  } catch (error) {
    if (error instanceof PageBudgetError) return parseText(htmlText(html), options);
    throw error;
  }
  if (!page.canonical || !/^https?:\/\//i.test(page.canonical) || page.canonical === options.url) return { title: page.title, sections: page.sections };
  const canonical = page.canonical;
  return { title: page.title, sections: page.sections.map((s) => ({ ...s, url: canonical + s.url.slice(options.url.length) })) };
}
