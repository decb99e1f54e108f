// A Vite plugin for builds: the widget's Lit `css` templates are minified with esbuild's CSS
// minifier, and the indentation inside `html` templates goes (Lit keeps template text as written,
// and esbuild's JS minifier leaves it alone).
import { transformSync } from 'esbuild';
import MagicString from 'magic-string';

/** Minifies one `css` template's text; `${…}` holes (declaration lists) are kept in place. */
export function minifyCssTemplate(body) {
  const holes = [];
  let text = body.replace(/\$\{[^}]*\}/g, (hole) => `--sc-hole-${holes.push(hole) - 1}:0;`);
  // A template that is only a list of declarations (a palette) is minified inside a rule.
  const bare = !text.includes('{');
  if (bare) text = `a{${text}}`;
  let out = transformSync(text, { loader: 'css', minify: true }).code.trim();
  if (bare) out = out.slice(2, -1);
  // esbuild keeps a custom property's value as written; the spaces after its colon and its commas are
  // not part of it (the widget's values have no commas inside strings).
  out = out.replace(/(--[\w-]+):([^;{}]*)/g, (_m, name, value) => `${name}:${value.trim().replace(/\s*,\s*/g, ',').replace(/\s+\)/g, ')')}`);
  return out.replace(/--sc-hole-(\d+):0;?/g, (_m, i) => `${holes[Number(i)]};`);
}

/**
 * The widget's own custom properties (`--sc-*`, set from the public `--support-chat-*` ones and read
 * only by its styles) get short names: `--sc-user-bubble` becomes `--s3`, say.
 */
export function shortenPrivateProperties(text, seed = '') {
  const names = new Map();
  // A module built apart (its styles adopted into the same shadow root) passes the bundle's styles as
  // `seed`, so each name gets the short name it has in the bundle.
  for (const name of seed.match(/--sc-[\w-]+/g) ?? []) if (!names.has(name)) names.set(name, `--s${names.size.toString(36)}`);
  return text.replace(/--sc-[\w-]+/g, (name) => {
    if (!names.has(name)) names.set(name, `--s${names.size.toString(36)}`);
    return names.get(name);
  });
}

/** `code` with each `css` template's text minified. */
export function minifyCssTemplates(code) {
  return code.replace(/\bcss`([^`]*)`/g, (_m, body) => `css\`${minifyCssTemplate(body)}\``);
}

export function minifyLitCss() {
  return {
    name: 'support-chat:minify-lit-css',
    apply: 'build',
    transform(code, id) {
      if (!/[\\/]src[\\/]widget[\\/].*\.styles\.ts$/.test(id)) return null;
      return { code: shortenPrivateProperties(minifyCssTemplates(code)), map: null };
    },
    // In minified output a real line break only occurs inside a template literal: there, a break and
    // its indentation become one break, the same whitespace to HTML (the widget has no
    // whitespace-preserving template text: user text and code are bindings).
    renderChunk(code) {
      const out = new MagicString(code);
      for (const match of code.matchAll(/\n[ \t]+/g)) out.remove(match.index + 1, match.index + match[0].length);
      return { code: out.toString(), map: out.generateMap({ hires: true }) };
    },
  };
}
