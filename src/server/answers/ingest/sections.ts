/** @module The unit of retrieval: a section of a page, a block of code, or a ticket. */

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
}

export interface ParsedFile {
  title: string;
  sections: Section[];
}
