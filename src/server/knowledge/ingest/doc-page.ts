/**
 * @module A Markdown or MDX docs page as a readable HTML page, for a site that serves its docs
 * folder itself (the `server.mjs` that `init` writes): parsed as ingest parses it, so each heading's
 * `id` is the anchor the answers cite; front matter, `import`/`export` lines and `{…}` expressions
 * are left out, components and admonitions show their content, and raw HTML is not passed through.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import { toHtml } from 'hast-util-to-html';
import type { Heading, PhrasingContent, Root, RootContent } from 'mdast';
import { toHast, type Handler, type State } from 'mdast-util-to-hast';
import { pieces } from './mdast-text.js';
import { frontmatter, tree } from './markdown.js';
import { pageName } from './sections.js';
import { Anchors } from './slug.js';

export interface RenderDocPageOptions {
  /**
   * The support widget on the page, so a visitor who followed a source can ask on: its script's
   * address and the proxy's path. @default no widget
   */
  widget?: { src: string; endpoint: string };
}

/** Headings in the order ingest meets them: at the top level and inside components and admonitions, as `pieces` walks. */
function headingsOf(nodes: readonly RootContent[], out: Heading[] = []): Heading[] {
  for (const node of nodes) {
    if (node.type === 'heading') out.push(node);
    else if (node.type === 'mdxJsxFlowElement' || node.type === 'containerDirective') headingsOf(node.children as RootContent[], out);
  }
  return out;
}

/** A heading's children without a trailing `{#id}` (given as text or as an MDX expression): the id is its anchor, not its text. */
function withoutExplicitId(children: PhrasingContent[]): PhrasingContent[] {
  const last = children.at(-1);
  if (last?.type === 'mdxTextExpression' && last.value.startsWith('#')) return children.slice(0, -1);
  if (last?.type === 'text') {
    const value = last.value.trimEnd();
    const open = value.lastIndexOf('{#');
    if (open >= 0 && value.endsWith('}')) return [...children.slice(0, -1), { ...last, value: value.slice(0, open) }];
  }
  return children;
}

/**
 * Gives each heading the anchor ingest gives it (see markdown.ts `sectionsOf`): its `{#id}`, else
 * the page's next slug of its text; a `# line` after a titled page's subheadings is text there, and
 * gets none here. Returns the page's title.
 */
function anchorHeadings(root: Root, data: Record<string, unknown>): string {
  let pageTitle = typeof data.title === 'string' ? data.title.trim() : '';
  const nodes = headingsOf(root.children);
  const read = pieces(root.children).flatMap((p) => ('heading' in p ? [p.heading] : []));
  const anchors = new Anchors();
  let sawSubheading = false;
  nodes.forEach((node, i) => {
    const heading = read[i] ?? { depth: node.depth, text: '', id: null };
    if (heading.depth === 1 && pageTitle && sawSubheading) return;
    if (heading.depth > 1) sawSubheading = true;
    const anchor = heading.id ?? anchors.next(heading.text);
    if (heading.depth === 1 && !pageTitle) pageTitle = heading.text;
    node.children = withoutExplicitId(node.children);
    if (anchor) node.data = { ...node.data, hProperties: { ...node.data?.hProperties, id: anchor } };
  });
  return pageTitle;
}

const nothing: Handler = () => undefined;
const wrap =
  (tagName: string): Handler =>
  (state: State, node) => ({ type: 'element', tagName, properties: {}, children: state.all(node) });

/** What MDX and directives add to Markdown: code and front matter left out, components and admonitions as their content. */
const HANDLERS: Record<string, Handler> = {
  yaml: nothing,
  toml: nothing,
  mdxjsEsm: nothing,
  mdxFlowExpression: nothing,
  mdxTextExpression: nothing,
  mdxJsxFlowElement: wrap('div'),
  mdxJsxTextElement: wrap('span'),
  containerDirective: wrap('aside'),
  leafDirective: wrap('div'),
  textDirective: wrap('span'),
};

const STYLE = [
  'body{font:16px/1.6 system-ui,sans-serif;color:#1f2328;max-width:46rem;margin:2rem auto;padding:0 1rem}',
  'pre{overflow:auto;background:#f6f8fa;padding:.75rem;border-radius:6px}code{font-family:ui-monospace,monospace;font-size:.9em}',
  'table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:.25rem .5rem}aside{border-left:4px solid #0969da;padding:0 1rem;margin:1rem 0}',
  ':target{scroll-margin-top:1rem;background:#fff8c5}',
  '@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}pre{background:#161b22}:target{background:#3b2e00}a{color:#4493f8}}',
].join('');

const element = (tagName: string, properties: Element['properties'], children: ElementContent[] = []): Element => ({ type: 'element', tagName, properties, children });

/** The HTML page of a Markdown (or, with `mdx`, MDX) text; `name` titles a page that has no title of its own. */
export function docPageHtml(text: string, options: { mdx: boolean; name: string } & RenderDocPageOptions): string {
  let content: ElementContent[];
  let title: string;
  try {
    const root = tree(text, options.mdx);
    const data = frontmatter(root);
    title = anchorHeadings(root, data) || pageName(options.name);
    const body = toHast(root, { handlers: HANDLERS }) as HastRoot | Element;
    content = body.children as ElementContent[];
    // A page titled by its front matter alone (Starlight, Docusaurus) shows that title.
    if (!root.children.some((n) => n.type === 'heading' && n.depth === 1)) content = [element('h1', {}, [{ type: 'text', value: title }]), ...content];
  } catch (error) {
    // Thousands of nested quotes or lists exhaust the stack: such a page shows as its text.
    if (!(error instanceof RangeError)) throw error;
    title = pageName(options.name);
    content = [element('pre', {}, [{ type: 'text', value: text }])];
  }
  const widget = options.widget ? [element('script', { src: options.widget.src, dataEndpoint: options.widget.endpoint, async: true })] : [];
  const page: HastRoot = {
    type: 'root',
    children: [
      { type: 'doctype' },
      element('html', { lang: 'en' }, [
        element('head', {}, [
          element('meta', { charSet: 'utf-8' }),
          element('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
          element('title', {}, [{ type: 'text', value: title }]),
          element('style', {}, [{ type: 'text', value: STYLE }]),
        ]),
        element('body', {}, [element('main', {}, content), ...widget]),
      ]),
    ],
  };
  return toHtml(page);
}

/**
 * A docs page (`.md` or `.mdx`) as a readable HTML page whose headings carry the anchors the
 * answers cite.
 *
 * @example
 * res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(await renderDocPage('docs/billing.mdx'));
 */
export async function renderDocPage(file: string, options: RenderDocPageOptions = {}): Promise<string> {
  const ext = extname(file).toLowerCase();
  return docPageHtml(await readFile(file, 'utf8'), { mdx: ext === '.mdx', name: basename(file, ext), ...options });
}
