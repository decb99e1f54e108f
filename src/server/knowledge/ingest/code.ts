/** @module Source code: split at functions, classes and other declarations; each piece addressed by `#Lstart-Lend`. */
import type { ParsedFile, Section } from './sections.js';
import { codeBlock, type Passage } from '../text/passage.js';
import { passageOfMarkdown } from './stored-passage.js';

export const CODE_LANGUAGES: Record<string, string> = {
  '.ts': 'typescript', '.tsx': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
  '.js': 'javascript', '.jsx': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript',
  '.py': 'python', '.go': 'go', '.rs': 'rust', '.java': 'java', '.kt': 'kotlin', '.cs': 'csharp',
  '.rb': 'ruby', '.php': 'php', '.c': 'c', '.h': 'c', '.cpp': 'cpp', '.hpp': 'cpp', '.cc': 'cpp', '.swift': 'swift', '.scala': 'scala',
};

/** A declaration that starts a new piece, per language; `name` captures what it declares. */
const DECLARATION: Record<string, RegExp> = {
  typescript: /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|enum|const|let|var|namespace)\s+(?<name>[\w$]+)/,
  javascript: /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var)\s+(?<name>[\w$]+)/,
  python: /^(?:async\s+def|def|class)\s+(?<name>\w+)/,
  go: /^(?:func(?:\s*\([^)]*\))?|type|var|const)\s+(?<name>\w+)/,
  rust: /^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?(?:fn|struct|enum|trait|impl(?:<[^>]*>)?|mod|type|static|union|macro_rules!)\s+(?<name>[\w:]+)/,
  java: /^(?:\s{0,4})(?:@\w+\s+)*(?:(?:public|private|protected|static|final|abstract|synchronized|sealed|default)\s+)*(?:class|interface|enum|record|[\w<>[\],\s]+?)\s+(?<name>\w+)\s*(?:\(|\{|extends|implements|<)/,
  kotlin: /^(?:\s{0,4})(?:(?:public|private|internal|protected|open|data|sealed|abstract|override|suspend)\s+)*(?:fun|class|object|interface)\s+(?<name>[\w.]+)/,
  csharp: /^(?:\s{0,8})(?:\[[^\]]*\]\s*)*(?:(?:public|private|protected|internal|static|sealed|abstract|partial|async|override|virtual)\s+)+(?:class|interface|struct|enum|record|[\w<>[\],\s]+?)\s+(?<name>\w+)\s*[({<:]/,
  ruby: /^\s{0,2}(?:def|class|module)\s+(?<name>[\w.:?!]+)/,
  php: /^\s{0,4}(?:(?:public|private|protected|static|abstract|final)\s+)*(?:function|class|interface|trait)\s+(?<name>\w+)/,
  c: /^(?!\s)(?!return\b)[\w\s*]+?\b(?<name>\w+)\s*\([^;]*$/,
  cpp: /^(?!\s)(?!return\b)(?:class|struct|namespace)?[\w\s*:&<>]+?\b(?<name>[\w:~]+)\s*\([^;]*$/,
  swift: /^\s{0,4}(?:(?:public|private|internal|open|static|final)\s+)*(?:func|class|struct|enum|protocol|extension)\s+(?<name>\w+)/,
  scala: /^\s{0,2}(?:(?:private|protected|final|sealed|case|implicit|override)\s+)*(?:def|class|object|trait)\s+(?<name>\w+)/,
};

/** Lines that belong to the declaration below them: doc comments, attributes, decorators. */
const PREAMBLE = /^\s*(\/\/\/?|\/\*\*?|\*|#\[|@\w|#(?!include|define|!))/;
const MAX_LINES = 80;
/**
 * Declarations are read only on lines this long or shorter. The C and C++ patterns backtrack over
 * a line of words with no `(` (`'a ' × 20,000` took seconds); a declaration is never longer.
 */
const MAX_DECLARATION_LINE = 300;

/** Languages whose comments may start with `#` (elsewhere `#` starts an attribute or a preprocessor line: `#[derive]`, `#include`). */
const HASH_COMMENTS = new Set(['python', 'ruby', 'php']);
const COMMENT = /^\s*(?:\/\/[/!]?|\*|\/\*\*?|""")\s?(.*)$/;
const COMMENT_OR_HASH = /^\s*(?:\/\/[/!]?|#(?![[!])|\*|\/\*\*?|""")\s?(.*)$/;
/** A licence or copyright header: notes for lawyers, not what the code does. */
const LICENCE = /copyright|\(c\)\s*\d{4}|spdx-license|licen[cs]ed (?:to|under)|licen[cs]e agreements?|permission is hereby granted|all rights reserved|apache\.org\/licenses|general public licen[cs]e/i;

/**
 * A piece's comments as prose, one text per comment block (its lines up to code or an empty line):
 * each run of comment lines a paragraph, its lines as written (a blank comment line ends one), with
 * comment markers, closing markers and JSDoc tags (@module, @default…) dropped. A comment block
 * that holds a licence header is left out whole: its paragraphs ("Unless required by applicable
 * law…") say nothing of the code.
 */
function commentBlocks(lines: string[], lang: string): string[] {
  const marker = HASH_COMMENTS.has(lang) ? COMMENT_OR_HASH : COMMENT;
  const blocks: string[][][] = [[[]]];
  for (const line of lines) {
    const comment = marker.exec(line)?.[1];
    const block = blocks.at(-1)!;
    if (comment === undefined) {
      if (block.some((paragraph) => paragraph.length > 0)) blocks.push([[]]);
      continue;
    }
    const text = comment.replace(/\*\/\s*$/, '').replace(/^@(module|param|returns?|default|example|type|see)\b\s*/, '').trim();
    if (text && !/^[-=*/]+$/.test(text)) block.at(-1)!.push(text);
    else if (block.at(-1)!.length > 0) block.push([]);
  }
  return blocks
    .filter((block) => !block.some((paragraph) => LICENCE.test(paragraph.join(' '))))
    .map((block) => block.filter((paragraph) => paragraph.length > 0).map((paragraph) => paragraph.join('\n')).join('\n\n'))
    .filter(Boolean);
}

/**
 * A code piece's passage: each comment block read as Markdown where a language has a convention for
 * it (JSDoc, TSDoc, rustdoc: links read as their text, a fenced example as code), apart from the
 * others (numbered comments above different code are not one list), then its code.
 */
function codePassage(comments: string[], code: string, lang: string): Passage {
  const blocks = comments.flatMap((comment) => passageOfMarkdown(comment).blocks);
  return { lang: '', blocks: [...blocks, codeBlock(code, lang)] };
}

export function parseCode(text: string, options: { url: string; path: string; lang: string }): ParsedFile {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const pattern = DECLARATION[options.lang];
  const starts: { line: number; name: string }[] = [];
  if (pattern) {
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.length > MAX_DECLARATION_LINE) continue;
      const m = pattern.exec(lines[i]!);
      if (!m?.groups?.name) continue;
      let start = i;
      while (start > 0 && PREAMBLE.test(lines[start - 1]!) && !(starts.at(-1) && starts.at(-1)!.line >= start - 1)) start--;
      if (starts.at(-1)?.line === start) continue;
      starts.push({ line: start, name: m.groups.name });
    }
  }
  const pieces: { from: number; to: number; name: string }[] = [];
  if (starts.length === 0 || starts[0]!.line > 0) pieces.push({ from: 0, to: (starts[0]?.line ?? lines.length) - 1, name: '' });
  starts.forEach((s, i) => pieces.push({ from: s.line, to: (starts[i + 1]?.line ?? lines.length) - 1, name: s.name }));

  const sections: Section[] = [];
  const fileName = options.path.split('/').pop() ?? options.path;
  for (const piece of pieces) {
    // Long pieces are cut into windows so each source link points at a readable range.
    for (let from = piece.from; from <= piece.to; from += MAX_LINES) {
      const to = Math.min(piece.to, from + MAX_LINES - 1);
      let first = from;
      let last = to;
      while (first < last && !lines[first]!.trim()) first++;
      while (last > first && !lines[last]!.trim()) last--;
      const code = lines.slice(first, last + 1).join('\n');
      if (!code.trim()) continue;
      const comments = commentBlocks(lines.slice(first, last + 1), options.lang);
      const name = piece.name ? `${piece.name}${from > piece.from ? ' (continued)' : ''}` : fileName;
      sections.push({
        title: name,
        context: options.path,
        url: `${options.url}#L${first + 1}-L${last + 1}`,
        body: comments.join('\n\n'),
        code,
        lang: options.lang,
        kind: 'code',
        passage: codePassage(comments, code, options.lang),
      });
    }
  }
  return { title: fileName, sections };
}
