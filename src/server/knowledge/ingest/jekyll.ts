/**
 * @module A Jekyll site's Markdown pages as Jekyll renders them: Liquid first (`{% include … %}`
 * from the site's `_includes`, `{{ site.baseurl }}` from its `_config.yml`, `{{ page.title }}` from
 * the page's front matter), by LiquidJS, then kramdown's attribute lists (`{:target="_blank"}`)
 * read by markdown.ts and left out of the text. Without this a reply quotes `{% include … %}` and
 * links to `%7B%7B%20site.baseurl%20%7D%7D/…`.
 *
 * Includes are read from the files given (see sources/jekyll-site.ts), never from the disk by a
 * page: `{% include ../../secret %}` finds nothing. A page whose Liquid does not render (an error,
 * an include that includes itself, past the parse or render budget) is read as it is written.
 */
import { Liquid, type FS } from 'liquidjs';
import { frontMatterBlock } from './markdown.js';

/** What a page of a Jekyll site is rendered with. */
export interface JekyllSite {
  /** The site's `_config.yml`: Liquid's `site`. */
  config: Record<string, unknown>;
  /** The files of `_includes`, by their path inside it (`nav/footer.md`). */
  includes: ReadonlyMap<string, string>;
  /** Whether the site's Markdown is kramdown (Jekyll's default): its attribute lists are syntax, not text. */
  kramdown: boolean;
}

/** The most characters of template a page's Liquid parses (the page and what it includes), and the render's limits. */
const PARSE_LIMIT = 2_000_000;
const RENDER_LIMIT_MS = 1_000;
const MEMORY_LIMIT = 4_000_000;

/** `_includes` as a file system of its own: a path names one of its files or nothing (an empty include). */
function includesFs(includes: ReadonlyMap<string, string>): FS {
  const read = (file: string) => includes.get(file) ?? '';
  return {
    exists: async () => true,
    existsSync: () => true,
    readFile: async (file) => read(file),
    readFileSync: read,
    // Paths are the include's own name, relative to `_includes` (Jekyll resolves no `..` there either).
    resolve: (_dir, file) => file,
    // Every name is inside: what it names is read from `includes` alone.
    contains: async () => true,
    containsSync: () => true,
  };
}

/**
 * The page's text with its Liquid rendered; the text as written when it does not render.
 * `page` is its front matter (Liquid's `page`).
 *
 * @example
 * await renderJekyll('[Mac]({{ site.baseurl }}/mac)', { config: { baseurl: '/help' }, includes: new Map(), kramdown: true }, {});
 * // '[Mac](/help/mac)'
 */
export async function renderJekyll(text: string, site: JekyllSite, page: Record<string, unknown>): Promise<string> {
  // The page's Liquid is its body alone, after its front matter.
  const end = frontMatterBlock(text)?.end ?? 0;
  const [head, body] = [text.slice(0, end), text.slice(end)];
  if (!body.includes('{%') && !body.includes('{{')) return text;
  const liquid = new Liquid({
    fs: includesFs(site.includes),
    root: ['.'],
    jekyllInclude: true,
    relativeReference: false,
    dynamicPartials: false,
    strictFilters: false,
    strictVariables: false,
    parseLimit: PARSE_LIMIT,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
  try {
    return head + (await liquid.parseAndRender(body, { site: { baseurl: '', ...site.config }, page }));
  } catch {
    return text;
  }
}
