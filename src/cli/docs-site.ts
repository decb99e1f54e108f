/**
 * @module Which docs generator a site uses (Docusaurus, VitePress or Starlight), where its pages are
 * and at which routes it serves them: read from package.json and the generator's config file, parsed
 * as JavaScript (acorn), so `init` ingests the pages at the addresses the site links to and never
 * its static folder.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { Parser, type Node } from 'acorn';
import type { SiteGenerator, SiteRoutes } from '../server/knowledge/index.js';

/** A docs site found in a folder. */
export interface DocsSite {
  generator: SiteGenerator;
  /** Its name as people write it, for messages. */
  name: string;
  /** The folder of its pages, relative to the site's folder. */
  content: string;
  routes: SiteRoutes;
  /** The config file read, relative to the site's folder; null when there is none. */
  config: string | null;
  /** Settings the config file sets in a way that could not be read (TypeScript, computed values): defaults were used. */
  unread: string[];
}

const GENERATOR_NAMES: Record<SiteGenerator, string> = { docusaurus: 'Docusaurus', vitepress: 'VitePress', starlight: 'Starlight' };
const CONFIG_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'];

/** The first of `base` + each config extension that exists, relative to `dir`. */
function configFile(dir: string, base: string): string | null {
  for (const ext of CONFIG_EXTENSIONS) if (existsSync(join(dir, base + ext))) return base + ext;
  return null;
}

function dependencies(dir: string): Set<string> {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return new Set();
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const names = ['dependencies', 'devDependencies', 'peerDependencies'].flatMap((key) => Object.keys((pkg[key] as Record<string, unknown> | undefined) ?? {}));
    return new Set(names);
  } catch {
    return new Set();
  }
}

/** A config file's program, or null when it is not plain JavaScript (a TypeScript config with type annotations). */
function program(file: string): Node | null {
  try {
    return Parser.parse(readFileSync(file, 'utf8'), { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
  } catch {
    return null;
  }
}

type Value = string | boolean | Node | undefined;

/**
 * The value of the first `name: …` property in the tree (depth first, source order): a string or
 * boolean literal (or a template without expressions), else the value's node. One walk, linear in
 * the tree.
 */
function property(root: Node | undefined, name: string): Value {
  if (!root) return undefined;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | null;
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    if (node.type === 'Property' && !node.computed) {
      const key = node.key as { type: string; name?: string; value?: unknown };
      if ((key.type === 'Identifier' && key.name === name) || (key.type === 'Literal' && key.value === name)) {
        const value = node.value as Record<string, unknown> & Node;
        if (value.type === 'Literal' && (typeof value.value === 'string' || typeof value.value === 'boolean')) return value.value;
        if (value.type === 'TemplateLiteral' && (value.expressions as unknown[]).length === 0) return (value.quasis as { value: { cooked: string } }[])[0]!.value.cooked;
        return value;
      }
    }
    const children = Object.entries(node).filter(([key]) => key !== 'type' && key !== 'start' && key !== 'end' && key !== 'loc');
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]![1]);
  }
  return undefined;
}

/** A base path as `/x/y/`: from `/`, ending in `/`. */
function basePath(...parts: (string | undefined)[]): string {
  const path = parts.filter((p): p is string => Boolean(p)).join('/').split('/').filter(Boolean).join('/');
  return path ? `/${path}/` : '/';
}

const isDir = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

/** Reads settings of a config file; those it has in a form not read are listed in `unread`. */
class ConfigReader {
  readonly unread: string[] = [];
  readonly #tree: Node | null;

  constructor(readonly file: string | null, dir: string) {
    this.#tree = file ? program(join(dir, file)) : null;
  }

  /** The setting as a string, in `within` (a node from `node()`) or the whole config. */
  string(name: string, within?: Node): string | undefined {
    const value = this.#read(name, within);
    return typeof value === 'string' ? value : undefined;
  }

  boolean(name: string, within?: Node): boolean | undefined {
    const value = this.#read(name, within);
    return typeof value === 'boolean' ? value : undefined;
  }

  /** The object a setting holds (Docusaurus' `docs: {…}`), to read settings inside it. */
  node(name: string): Node | undefined {
    const value = this.#read(name, undefined, true);
    return typeof value === 'object' && value.type === 'ObjectExpression' ? value : undefined;
  }

  #read(name: string, within?: Node, object = false): Value {
    if (!this.file) return undefined;
    if (!this.#tree) {
      if (!this.unread.includes('the whole file')) this.unread.push('the whole file');
      return undefined;
    }
    const value = property(within ?? this.#tree, name);
    if (typeof value === 'object' && !object) this.unread.push(name);
    return value;
  }
}

function docusaurus(dir: string): DocsSite {
  const config = new ConfigReader(configFile(dir, 'docusaurus.config'), dir);
  const docs = config.node('docs');
  const routeBasePath = docs ? config.string('routeBasePath', docs) : undefined;
  const content = (docs ? config.string('path', docs) : undefined) ?? 'docs';
  const trailingSlash = config.boolean('trailingSlash');
  // `markdown.format`: `mdx` (the default) reads `.md` pages as MDX too; `md` and `detect` read them as Markdown.
  const markdown = config.node('markdown');
  const format = markdown ? config.string('format', markdown) : undefined;
  return {
    generator: 'docusaurus',
    name: GENERATOR_NAMES.docusaurus,
    content: posix.normalize(content),
    routes: { generator: 'docusaurus', base: basePath(config.string('baseUrl'), routeBasePath ?? 'docs'), ending: trailingSlash ? 'slash' : 'clean', ...(format === 'md' || format === 'detect' ? { mdx: false } : {}) },
    config: config.file,
    unread: config.unread,
  };
}

function vitepress(dir: string): DocsSite {
  // The VitePress root is the folder holding `.vitepress`: `docs/` as its guide sets it up, or the site's own folder.
  const root = isDir(join(dir, 'docs', '.vitepress')) || !isDir(join(dir, '.vitepress')) ? 'docs' : '.';
  const config = new ConfigReader(configFile(join(dir, root), '.vitepress/config'), join(dir, root));
  const srcDir = config.string('srcDir') ?? '.';
  return {
    generator: 'vitepress',
    name: GENERATOR_NAMES.vitepress,
    content: posix.join(root, srcDir),
    // `public` holds static files copied as they are (the widget's script among them): never pages.
    routes: { generator: 'vitepress', base: basePath(config.string('base')), ending: config.boolean('cleanUrls') ? 'clean' : 'html', skip: ['public'] },
    config: config.file && posix.join(root, config.file),
    unread: config.unread,
  };
}

function starlight(dir: string): DocsSite {
  const config = new ConfigReader(configFile(dir, 'astro.config'), dir);
  const trailingSlash = config.string('trailingSlash');
  const format = config.string('format');
  const ending = trailingSlash === 'never' ? 'clean' : format === 'file' ? 'html' : 'slash';
  return {
    generator: 'starlight',
    name: GENERATOR_NAMES.starlight,
    content: 'src/content/docs',
    routes: { generator: 'starlight', base: basePath(config.string('base')), ending },
    config: config.file,
    unread: config.unread,
  };
}

/** The docs site in `dir`, by its dependencies or config files; null when it is none of the three. */
export function detectDocsSite(dir: string): DocsSite | null {
  const deps = dependencies(dir);
  if (deps.has('@docusaurus/core') || configFile(dir, 'docusaurus.config')) return docusaurus(dir);
  if (deps.has('@astrojs/starlight')) return starlight(dir);
  if (deps.has('vitepress') || isDir(join(dir, '.vitepress')) || isDir(join(dir, 'docs', '.vitepress'))) return vitepress(dir);
  return null;
}
