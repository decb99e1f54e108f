/** @module Plain text pages (`.txt`, `.rst`): paragraphs grouped into sections of a few hundred words. */
import { pageName, type ParsedFile, type Section } from './sections.js';

/** Plain text: paragraphs grouped into sections of a few hundred words. */
export function parseText(text: string, options: { url: string; fallbackTitle: string }): ParsedFile {
  const title = pageName(options.fallbackTitle);
  const paragraphs = text.replace(/\r\n/g, '\n').split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const sections: Section[] = [];
  let current: string[] = [];
  let words = 0;
  const flush = () => {
    if (current.length === 0) return;
    sections.push({ title, context: title, url: options.url, body: current.join('\n\n'), code: '', lang: '', kind: 'doc' });
    current = [];
    words = 0;
  };
  for (const p of paragraphs) {
    current.push(p);
    words += p.split(/\s+/).length;
    if (words > 300) flush();
  }
  flush();
  return { title, sections };
}
