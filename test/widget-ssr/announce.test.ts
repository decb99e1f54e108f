/** The live region's words for an answer: prose only, never code, table pipes or citation markers. */
import { describe, expect, it } from 'vitest';
import { firstSentence as first } from '../../src/widget/announce.js';
import { parseMarkdown } from '../../src/widget/markdown.js';

const firstSentence = (md: string) => first(md, parseMarkdown);

describe('firstSentence', () => {
  it('reads the prose of an answer, leaving out code and the punctuation around it', () => {
    expect(firstSentence('Set `SUPPORT_CHAT_LLM_BASE_URL` to your model’s address. [1] More.')).toBe('Set to your model’s address.');
    expect(firstSentence('Run `npx support-chat-kit serve` (or `npm start`) to start the server [2].')).toBe('Run (or ) to start the server.');
  });

  it('skips a line that is mostly code, and a table, for the first prose after them', () => {
    const table = 'Attributes `endpoint`, `mode` (`launcher` | `inline`), `theme` (`light` | `dark` | `auto`), `lang` [1]\n\n| attribute | meaning |\n| --- | --- |\n| `endpoint` | the proxy |\n\nEach attribute has a property of the same name.';
    expect(firstSentence(table)).toBe('Each attribute has a property of the same name.');
    expect(firstSentence('| a | b |\n| --- | --- |\n| `x` | `y` |\n')).toBe('');
    expect(firstSentence('```sh\nnpx support-chat-kit init\n```\n\n- `init` makes the data directory and a token.')).toBe('makes the data directory and a token.');
  });

  it('never says a pipe, a backtick or a bracketed marker', () => {
    for (const md of ['`a` | `b` | `c`', 'Use | pipes | here `x` [3]', '(`a`), (`b`), (`c`): options are `x` and `y`.']) {
      expect(firstSentence(md)).not.toMatch(/[|`]|\[\d+\]/);
    }
  });

  it('stays linear on the worst prose it may read', () => {
    const worst = [`${' ,;:|()'.repeat(20_000)}x`, `\`a\`${' '.repeat(100_000)}\`b\` word word word.`, 'word '.repeat(50_000)];
    for (const md of worst) {
      const started = performance.now();
      firstSentence(md);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});
