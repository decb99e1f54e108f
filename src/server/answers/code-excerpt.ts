/** @module Code as a reply quotes it: a source file's excerpt around what the question names, fenced. */
import { specificity, termsByLine, type PassageBlock } from '../knowledge/index.js';

/** An import line. No two neighbouring repeats match the same characters (`use\s+[\w, ]+` did): linear in the line. */
const IMPORT_LINE = /^\s*(?:import\b|export\s+\*|export\s+\{[^}]*\}\s+from\b|from\s+\S+\s+import\b|use\s[\s\w:{},*]*;|#include\b|require\b|package\s|using\s+[\w.]+;|extern\s+crate\b|mod\s+\w+;)|^\s*(?:const|let|var)\s.*=\s*require\(/;

/** Bracket depth change of a line of code (strings and comments are not told apart: good enough to find statement ends). */
const depthChange = (line: string) => (line.match(/[({[]/g)?.length ?? 0) - (line.match(/[)}\]]/g)?.length ?? 0);

/**
 * About `lines` lines of code around the lines that match the question best: never the import
 * block, starting where a statement starts and ending where the brackets opened inside it close,
 * with nothing left out in between (what is shown is what "Copy code" copies).
 */
export function codeExcerpt(block: PassageBlock, lines: number, terms: Set<string>): string {
  const code = block.text;
  const all = code.split('\n');
  if (all.length <= lines && !all.some((l) => IMPORT_LINE.test(l))) return code;
  const body = all.map((line, i) => ({ line, i })).filter(({ line }) => !IMPORT_LINE.test(line));
  if (body.length === 0) return all.slice(0, lines).join('\n');
  // The best line: the most specific question words; the first code line when none match.
  let best = body.find(({ line }) => line.trim())?.i ?? 0;
  let bestScore = 0;
  const byLine = termsByLine(block);
  for (const { i } of body) {
    const words = new Set(byLine[i]);
    let score = 0;
    for (const t of terms) if (words.has(t)) score += specificity(t);
    if (score > bestScore) [best, bestScore] = [i, score];
  }
  // Start at the statement holding the best line: go up to a line at the same or lower indentation
  // whose previous line ends a statement, a block or is blank.
  const indent = (l: string) => l.match(/^\s*/)![0].length;
  let start = best;
  while (start > 0 && !IMPORT_LINE.test(all[start - 1]!) && best - start < Math.floor(lines / 3)) {
    const previous = all[start - 1]!.trim();
    if (indent(all[start]!) <= indent(all[best]!) && (previous === '' || /[;{}]$/.test(previous) || previous.startsWith('//') || previous.startsWith('#'))) break;
    start--;
  }
  while (start < best && !all[start]!.trim()) start++;
  // Never from inside a block comment: from its opening line, or past its end.
  if (/^\s*\*(?!\/)/.test(all[start]!)) {
    let open = start;
    while (open > 0 && start - open < lines && !all[open]!.includes('/*')) open--;
    if (all[open]!.includes('/*')) start = open;
    else while (start < all.length - 1 && /^\s*\*/.test(all[start]!)) start++;
  }
  // End where the brackets opened since the start close again, after at least `lines` lines when the code goes on.
  let end = start;
  let depth = 0;
  const limit = Math.min(all.length, start + lines * 2);
  while (end < limit) {
    depth += depthChange(all[end]!);
    end++;
    if (end - start >= lines && depth <= 0 && /[;})\],]\s*$|^\s*$/.test(all[end - 1]!)) break;
  }
  const shown = all.slice(start, end);
  while (shown.length && (IMPORT_LINE.test(shown.at(-1)!) || !shown.at(-1)!.trim())) shown.pop();
  return shown.join('\n').trimEnd();
}

/** A comment line, or a line inside a block comment (starting with `*`). */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*|#(?!\[|include|define|!)|--\s|"""|''')/;

/** A string literal opening (SQL, a Lua script, a worker's source). */
const OPENS_STRING = /^(?:String\.raw`|`|'''|"""|'|[rbf]?")/;

/** The statement (comments and blank lines left out) gives a name a string: `const CLAIM = `UPDATE jobs…``. */
function isStringConstant(code: string[]): boolean {
  const first = code[0]!;
  const assign = first.search(/[^=!<>]=(?![=>])/);
  if (assign < 0 || first.slice(0, assign + 1).includes('(')) return false;
  const value = first.slice(assign + 2).trimStart();
  if (!OPENS_STRING.test(value)) return false;
  // Text for a database or another program, not code that answers: a string that goes on past its
  // first line (its quote opens and does not close there), or a query.
  const quote = value.startsWith('`') || value.startsWith('String.raw`') ? '`' : value.startsWith('"""') ? '"""' : value.startsWith("'''") ? "'''" : null;
  const goesOn = quote !== null && value.split(quote).length % 2 === 0;
  return goesOn || /^\W*(?:select|insert|update|delete|create|with|alter|drop)\s/i.test(value.replace(OPENS_STRING, ''));
}

/**
 * Whether a code excerpt can answer: it holds code, not only imports and comments (a `@module` or
 * `@default` tag), and is not a query or script held in a string.
 */
export function answersAsCode(excerpt: string): boolean {
  const code = excerpt.split('\n').filter((line) => line.trim() && !COMMENT_LINE.test(line) && !IMPORT_LINE.test(line));
  return code.length > 0 && !isStringConstant(code);
}
