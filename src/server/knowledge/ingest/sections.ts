/** @module The unit of retrieval: a section of a page, a block of code, or a ticket. */
import type { Passage } from '../text/passage.js';

export interface Section {
  /** The section's own heading (or the declaration's name for code). */
  title: string;
  /** Page title and enclosing headings, for context and ranking. */
  context: string;
  /** Source URL: page URL + `#slug`, or file URL + `#Lstart-Lend`. */
  url: string;
  /** Prose, as readable text. */
  body: string;
  /** Code inside the section (fenced blocks, or the code itself). */
  code: string;
  /** Language of `code` when known. */
  lang: string;
  kind: 'doc' | 'code' | 'ticket';
  /** The section's text as its blocks and sentences (see text/passage.ts); made from the body when a parser gives none. */
  passage?: Passage;
}

/** A section as stored: its row id, the document it belongs to, and its passage. */
export interface StoredSection extends Section {
  id: number;
  docKey: string;
  passage: Passage;
}

/** A stored section with its sentence embedding's bytes and what made them. */
export interface SectionRow {
  section: StoredSection;
  embedding: Uint8Array | null;
  embeddingBy: string | null;
}

export interface ParsedFile {
  title: string;
  sections: Section[];
}

/**
 * A page's name as a person writes it, from its file name when the page names itself nowhere:
 * "getting-started" and "rate_limits" read "Getting started" and "Rate limits"; a name already
 * written with spaces or without separators ("Version history", "README") is kept.
 */
export function pageName(fileName: string): string {
  if (/\s/.test(fileName) || !/[a-z][-_][a-z]/i.test(fileName)) return fileName;
  const words = fileName.split(/[-_]+/).filter(Boolean).join(' ');
  return words === words.toLowerCase() ? words.charAt(0).toUpperCase() + words.slice(1) : words;
}
