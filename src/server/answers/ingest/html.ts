/** @module HTML pages: scripts and styles dropped, tags stripped, one section per h1–h3 (anchored by its id). */
import { slugify } from '../text.js';
import type { ParsedFile, Section } from './sections.js';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

function textOf(html: string): string {
  return decodeEntities(
    html
      .replace(/<(br|\/p|\/div|\/li|\/h\d|\/tr|\/pre)\b[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, ' ')
      .replace(/[ \t]+/g, ' ')
      .replace(/\n\s*\n\s*/g, '\n\n'),
  ).trim();
}

export function parseHtml(html: string, options: { url: string; fallbackTitle: string }): ParsedFile {
  const cleaned = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|noscript|template|svg|nav|footer)\b[\s\S]*?<\/\1>/gi, '');
  const titleTag = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(cleaned);
  const bodyMatch = /<body[^>]*>([\s\S]*)<\/body>/i.exec(cleaned);
  const body = bodyMatch ? bodyMatch[1]! : cleaned;
  const canonical = /<link[^>]+rel=["']canonical["'][^>]*href=["']([^"']+)["']/i.exec(cleaned);
  const pageUrl = canonical ? canonical[1]! : options.url;

  const parts = body.split(/(?=<h[1-3]\b)/i);
  const sections: Section[] = [];
  let title = titleTag ? textOf(titleTag[1]!) : '';
  const used = new Map<string, number>();
  for (const part of parts) {
    const heading = /^<h([1-3])\b([^>]*)>([\s\S]*?)<\/h\1>/i.exec(part);
    const headingText = heading ? textOf(heading[3]!) : '';
    if (heading && heading[1] === '1' && !title) title = headingText;
    const rest = heading ? part.slice(heading[0].length) : part;
    const code = [...rest.matchAll(/<pre\b[^>]*>([\s\S]*?)<\/pre>/gi)].map((m) => textOf(m[1]!)).join('\n\n');
    const prose = textOf(rest.replace(/<pre\b[^>]*>[\s\S]*?<\/pre>/gi, ''));
    if (!prose && !code && !headingText) continue;
    let anchor = '';
    if (heading && heading[1] !== '1') {
      const id = /\bid=["']([^"']+)["']/i.exec(heading[2]!);
      if (id) anchor = id[1]!;
      else {
        const base = slugify(headingText);
        const n = used.get(base) ?? 0;
        used.set(base, n + 1);
        anchor = n === 0 ? base : `${base}-${n}`;
      }
    }
    sections.push({
      title: headingText || title || options.fallbackTitle,
      context: title || options.fallbackTitle,
      url: anchor ? `${pageUrl}#${anchor}` : pageUrl,
      body: prose,
      code,
      lang: '',
      kind: 'doc',
    });
  }
  return { title: title || options.fallbackTitle, sections };
}

