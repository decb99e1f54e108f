/**
 * @module Styles of what only the Markdown renderer makes (code blocks and their copy button, quotes,
 * tables, `[n]` citation links), adopted into the element's shadow root once the Markdown module has
 * loaded: they travel with it (dist/markdown.js), not in the first bundle. They read the panel's
 * private custom properties (`--sc-*`), which builds rename in this module as in the bundle
 * (scripts/emit-module.mjs).
 */
export const markdownStyles = `
.content ul,.content ol{padding-inline-start:22px}
.content code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;background:var(--sc-code-bg);padding:1px 4px;border-radius:4px}
.content .code{position:relative}
.content pre{margin:0;padding:10px 12px;padding-block-start:30px;background:var(--sc-code-bg);border:1px solid var(--sc-line);border-radius:8px;overflow-x:auto;font-size:13px}
.content pre code{background:none;padding:0}
.copy{position:absolute;inset-block-start:4px;inset-inline-end:4px;font-size:12px;border:1px solid var(--sc-line);background:var(--sc-bg);border-radius:6px;padding:2px 8px;cursor:pointer}
.content blockquote{border-inline-start:3px solid var(--sc-line);padding-inline-start:10px;color:var(--sc-muted)}
.content .table{overflow-x:auto;max-inline-size:100%}
.content table{border-collapse:collapse;font-size:14px}
.content th,.content td{border:1px solid var(--sc-line);padding:4px 8px;text-align:start;overflow-wrap:normal;word-break:normal;hyphens:none}
.content th code,.content td code{white-space:nowrap}
.content .center{text-align:center}
.content .right{text-align:end}
.content a.cite{display:inline-block;min-inline-size:24px;min-block-size:24px;line-height:24px;text-align:center;font-size:12px;vertical-align:baseline;text-decoration:none;border-radius:6px;background:var(--sc-code-bg);margin-inline:1px}
.content a.cite:before{content:"["}
.content a.cite:after{content:"]"}
.content .code>.lang{position:absolute;inset-block-start:6px;inset-inline-start:12px;font-size:12px;color:var(--sc-muted);font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
`;

let sheet: CSSStyleSheet | undefined;

/** Adds these styles to `root` (a shadow root; once each). */
export function adoptStyles(root: Node): void {
  if (!(root instanceof ShadowRoot)) return;
  if (!sheet) (sheet = new CSSStyleSheet()).replaceSync(markdownStyles);
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}
