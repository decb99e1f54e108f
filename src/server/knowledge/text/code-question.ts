/**
 * @module Whether a question asks about code: it names an identifier or a file, or speaks of code.
 * Ranking reads it (such a question is asked of the code as much as of the docs) and so do replies
 * (a source file's code is quoted only to it).
 */

/** Words of a question that ask about code rather than how to use the product. */
const CODE_WORDS = new Set([
  'code',
  'snippet',
  'function',
  'method',
  'class',
  'struct',
  'trait',
  'interface',
  'enum',
  'closure',
  'macro',
  'constant',
  'variable',
  'implementation',
  'implemented',
  'implement',
  'source',
  'sdk',
  'import',
  'typescript',
  'javascript',
  'python',
  'rust',
  'signature',
  'constructor',
  'instance',
]);

/**
 * An identifier as a question names it: `run_target`, `DiffExecutor`, `createSupportProxy()`,
 * `llm.ts`, `--base-url`, anything in backticks (a name such as "OpenAI" or "iOS" is not one).
 * Tested word by word, each test bounded by the word.
 */
const IDENTIFIER = /`|\(\)|_|\p{Ll}\p{Lu}\p{Ll}|^--?\p{L}|\.(?:[cm]?[jt]sx?|py|rs|go|java|rb|json|ya?ml|toml)$/u;

/**
 * Whether a question asks for code: it names an identifier or a file, or speaks of code (a
 * function, a class, the implementation). Other questions are prose questions, answered in prose:
 * a code block only where the docs introduce one ("add this:").
 */
export function asksForCode(question: string): boolean {
  return question.split(/\s+/).some((word) => {
    if (!word) return false;
    if (IDENTIFIER.test(word)) return true;
    return CODE_WORDS.has(word.toLowerCase().replace(/[^\p{L}]/gu, ''));
  });
}
