/**
 * Where each generator serves a content file (`routeOf`), and what `detectDocsSite` reads of a
 * site's config: the settings that move routes, and what it could not read.
 */
import { describe, expect, it } from 'vitest';
import { detectDocsSite } from '../../src/cli/docs-site.js';
import { frontMatterOf, routeOf, type SiteRoutes } from '../../src/server/knowledge/sources/site-routes.js';
import { testFolders } from '../helpers/folders.js';

/** A new folder holding these files. */
const folder = testFolders('sc-site-routes-');

describe('routeOf', () => {
  const vitepress: SiteRoutes = { generator: 'vitepress', base: '/', ending: 'html' };
  const docusaurus: SiteRoutes = { generator: 'docusaurus', base: '/docs/', ending: 'clean' };
  const starlight: SiteRoutes = { generator: 'starlight', base: '/', ending: 'slash' };

  it('VitePress: .html without cleanUrls, the folder for index.md', () => {
    expect(routeOf(vitepress, 'guide/install.md', {})).toBe('/guide/install.html');
    expect(routeOf(vitepress, 'guide/index.md', {})).toBe('/guide/');
    expect(routeOf(vitepress, 'index.md', {})).toBe('/');
    expect(routeOf({ ...vitepress, ending: 'clean' }, 'guide/install.md', {})).toBe('/guide/install');
  });

  it('Docusaurus: number prefixes dropped, slug (absolute and relative) and id, README and a doc named as its folder, trailingSlash', () => {
    expect(routeOf(docusaurus, '01-guide/02-install.md', {})).toBe('/docs/guide/install');
    expect(routeOf(docusaurus, 'guide/install.md', { slug: '/setup' })).toBe('/docs/setup');
    expect(routeOf(docusaurus, 'guide/install.md', { slug: 'setup' })).toBe('/docs/guide/setup');
    expect(routeOf(docusaurus, 'guide/install.md', { id: 'get-it' })).toBe('/docs/guide/get-it');
    expect(routeOf(docusaurus, 'guide/README.md', {})).toBe('/docs/guide');
    expect(routeOf(docusaurus, 'guide/guide.md', {})).toBe('/docs/guide');
    expect(routeOf(docusaurus, 'index.md', {})).toBe('/docs/');
    expect(routeOf({ ...docusaurus, ending: 'slash' }, 'guide/install.md', {})).toBe('/docs/guide/install/');
  });

  it('Starlight: segments slugged, index as its folder, slug as the route, encoded', () => {
    expect(routeOf(starlight, 'Guide/Getting Started.mdx', {})).toBe('/guide/getting-started/');
    expect(routeOf(starlight, 'guide/index.mdx', {})).toBe('/guide/');
    expect(routeOf(starlight, 'guide/install.md', { slug: 'setup/now' })).toBe('/setup/now/');
    expect(routeOf(starlight, 'café.md', {})).toBe('/caf%C3%A9/');
  });

  it('reads front matter at the start of a page only, and nothing from YAML that does not parse', () => {
    expect(frontMatterOf('---\nslug: /x\n---\n# T\n')).toEqual({ slug: '/x' });
    expect(frontMatterOf('# T\n---\nslug: /x\n---\n')).toEqual({});
    expect(frontMatterOf('---\nslug: [\n---\n')).toEqual({});
  });
});

describe('detectDocsSite', () => {
  it("reads baseUrl and the docs' routeBasePath and path (not the blog's) of a Docusaurus config", () => {
    const dir = folder({
      'package.json': JSON.stringify({ dependencies: { '@docusaurus/core': '3.10.0' } }),
      'docusaurus.config.js': "export default { baseUrl: '/proj/', trailingSlash: true, presets: [['classic', { blog: { routeBasePath: 'news' }, docs: { routeBasePath: '/', path: 'content' } }]] };\n",
    });
    expect(detectDocsSite(dir)).toMatchObject({ generator: 'docusaurus', content: 'content', routes: { base: '/proj/', ending: 'slash' }, unread: [] });
    // Its `.md` pages are MDX unless `markdown.format` says otherwise.
    expect(detectDocsSite(dir)!.routes.mdx).toBeUndefined();
  });

  it("reads a Docusaurus site's markdown.format: `detect` and `md` read .md pages as Markdown, `mdx` as MDX", () => {
    for (const [format, mdx] of [['detect', false], ['md', false], ['mdx', undefined]] as const) {
      const dir = folder({
        'package.json': JSON.stringify({ dependencies: { '@docusaurus/core': '3.10.0' } }),
        'docusaurus.config.js': `export default { baseUrl: '/', markdown: { format: '${format}' } };\n`,
      });
      expect(detectDocsSite(dir)!.routes.mdx).toBe(mdx);
    }
  });

  it('says what it could not read: a TypeScript config with type annotations, a computed value', () => {
    const ts = folder({
      'package.json': JSON.stringify({ dependencies: { '@docusaurus/core': '3.10.0' } }),
      'docusaurus.config.ts': "import type { Config } from '@docusaurus/types';\nconst config: Config = { baseUrl: '/proj/' };\nexport default config;\n",
    });
    expect(detectDocsSite(ts)).toMatchObject({ routes: { base: '/docs/' }, unread: ['the whole file'] });
    const computed = folder({
      'package.json': JSON.stringify({ devDependencies: { vitepress: '1.6.4' } }),
      'docs/.vitepress/config.mjs': 'export default { base: process.env.BASE, cleanUrls: true };\n',
    });
    expect(detectDocsSite(computed)).toMatchObject({ generator: 'vitepress', content: 'docs', routes: { base: '/', ending: 'clean', skip: ['public'] }, unread: ['base'] });
  });

  it("finds Starlight by its dependency, with Astro's base and trailingSlash; nothing in a plain folder", () => {
    const dir = folder({
      'package.json': JSON.stringify({ dependencies: { astro: '5.16.0', '@astrojs/starlight': '0.37.0' } }),
      'astro.config.mjs': "export default { base: '/docs', trailingSlash: 'never' };\n",
    });
    expect(detectDocsSite(dir)).toMatchObject({ generator: 'starlight', content: 'src/content/docs', routes: { base: '/docs/', ending: 'clean' } });
    expect(detectDocsSite(folder({ 'package.json': '{}' }))).toBeNull();
  });
});
