import { describe, expect, it } from 'vitest';
import { MAX_QUERY_WORDS, MAX_RESPELLED_WORDS, SearchIndex, uniqueLines } from '../../../src/server/knowledge/ranking/search-index.js';
import { isQuestionFraming, tokenize } from '../../../src/server/knowledge/text/text.js';

const section = (id: number, title: string, body: string) => ({ id, title, context: '', body, code: '' });

describe('question framing', () => {
  it('recognizes the words that frame a question, after tokenizing', () => {
    expect(tokenize('What are the two main benefits you recommend?').filter(isQuestionFraming)).toEqual(tokenize('two main benefits recommend'));
    expect(tokenize('webhook signature').some(isQuestionFraming)).toBe(false);
  });

  it('lets the subject of a question decide the ranking over the words that frame it', () => {
    const index = new SearchIndex([
      section(0, 'Main benefits', 'Two main benefits we recommend for every team: speed and one clear key workflow.'),
      section(1, 'Webhook retries', 'Webhook deliveries are retried with backoff when the receiver fails.'),
    ]);
    const hits = index.search('What are the two main benefits of webhook retries you recommend?');
    expect(hits[0]!.index).toBe(1);
  });

  it('reads "does it work with X?" as a question about X, not about a section headed "Work…"', () => {
    const index = new SearchIndex([
      section(0, 'Work per request', 'Each answered question costs a few reads; on PostgreSQL a GET reads once, on SQLite it reads nothing.'),
      section(1, 'Running on PostgreSQL', 'Set the database URL to a PostgreSQL database and the server keeps everything there.'),
    ]);
    expect(tokenize('does it work with PostgreSQL? it works, working').filter(isQuestionFraming)).toEqual(tokenize('work works working'));
    expect(index.search('does it work with PostgreSQL?')[0]!.index).toBe(1);
  });
});

describe('misspelled words', () => {
  const index = new SearchIndex([
    section(0, 'Tags', 'Tags can hold several words: write multi word tags in camelCase or with dashes.'),
    section(1, 'Two-factor authentication', 'Connect an authenticator app with a QR code. Keep your recovery codes.'),
    section(2, 'Sync on iPhone', 'Open the Files app and choose the vault folder.'),
    section(3, 'Licence', 'Released under the MIT licence. MIT. MIT.'),
    section(4, 'Formatting', 'Notes are written in Markdown.'),
  ]);

  it('reads a misspelled word as the everyday word one edit away, edited as written rather than stemmed', () => {
    expect(index.terms('mutli word tags')).toEqual(index.terms('multi word tags'));
    expect(index.terms('authenticater')).toEqual(index.terms('authenticator'));
    expect(index.search('how do i do mutli word tags')[0]!.index).toBe(0);
  });

  it("reads a misspelled word of the knowledge base's own (a name, jargon) by its stem when no everyday word fits", () => {
    expect(index.terms('markdwon')).toEqual(index.terms('markdown'));
  });

  it('reads a lowercase name as the knowledge base writes it whole ("iphone" for "iPhone")', () => {
    expect(index.terms('iphone')).toContain('iphone');
    expect(index.search('open my vault on my iphone')[0]!.index).toBe(2);
  });

  it('keeps words it knows, and words with no near neighbour, as they are', () => {
    expect(index.terms('tags licence zyxwvut')).toEqual(tokenize('tags licence zyxwvut'));
  });

  it('reads a misspelled identifier as the one the knowledge base holds, whole or by its parts', () => {
    const code = new SearchIndex([
      { id: 0, title: 'OomObserver', context: 'src/oom.rs', body: '', code: 'impl OomObserver {\n  pub fn new(rss_max: usize) -> Self { OomObserver { rss_max } }\n}' },
      { id: 1, title: 'Octal', context: 'src/octal.py', body: '', code: 'class Octal:\n    def getTarget() -> str:\n        return "octal"' },
      { id: 2, title: 'Observer pattern', context: 'docs/patterns.md', body: 'An observer watches a subject. A target receives events.', code: '' },
    ]);
    // The whole identifier within the edits its length allows (a swap): the one the index holds, its misspelled part too.
    expect(code.terms('a new `OomOsberver`')).toEqual(code.terms('a new `OomObserver`'));
    expect(code.terms('OomOsberver')).toEqual(['oomobserver', 'oom', 'observ']);
    expect(code.search('How do I create a new `OomOsberver`?')[0]!.index).toBe(0);
    expect(code.terms('getTrget')).toEqual(code.terms('getTarget'));
    // A whole the index does not hold: each misspelled part read as the word it means, the rest as written.
    expect(code.terms('fooTrget')).toEqual(['footrget', 'foo', 'target']);
    // Known identifiers, and parts with no near neighbour, stay as written.
    expect(code.terms('getTarget maxZyxwvut')).toEqual(tokenize('getTarget maxZyxwvut'));
  });
});

describe('headings named by the question', () => {
  it('ranks a section whose heading the question names in full above one whose heading and text only contain the words', () => {
    const index = new SearchIndex([
      section(0, 'Keys: rotate, revoke, restrict and audit', 'Rotate keys monthly. Rotate keys after staff leave. Rotate keys when they leak. Rotation of keys is logged. Keys are keys.'),
      section(1, 'Rotate keys', 'Open the dashboard and choose a new one; the old one keeps working for a day, then it stops, and every client that still sends it gets an error until it is updated with the new one.'),
      section(2, 'Billing', 'Invoices are monthly.'),
    ]);
    expect(index.search('How often should I rotate keys?')[0]!.index).toBe(1);
  });
});

describe('repeated lines', () => {
  it('counts a passage repeated once per tab of an exported page once', () => {
    const passage = 'Stream events arrive as text deltas.\nEach delta carries the next piece of text.';
    const other = section(1, 'Errors', 'An error event ends the stream early.');
    const once = new SearchIndex([section(0, 'Text delta', passage), other]).search('text delta events');
    const repeated = new SearchIndex([section(0, 'Text delta', [passage, passage, passage, passage].join('\n')), other]).search('text delta events');
    expect(repeated[0]!.index).toBe(0);
    expect(repeated[0]!.score).toBeCloseTo(once[0]!.score, 10);
  });

  it('keeps text, blank lines and the first of each repeated line in order', () => {
    expect(uniqueLines('a\nb\na\n\n\nc\nb')).toBe('a\nb\n\n\nc');
  });
});

describe('postings', () => {
  it('finds exactly the sections holding a term, in any field, across thousands of terms and sections', () => {
    // 1,200 sections of 70 distinct words from a vocabulary of 6,000: more terms and more
    // (section, term) records than the index's first allocation holds.
    const word = (n: number) => `w${n.toString(36)}x`;
    const sections = Array.from({ length: 1_200 }, (_, i) => ({
      id: i,
      title: word((i * 7) % 6_000),
      context: word((i * 11) % 6_000),
      body: Array.from({ length: 60 }, (_, k) => word((i * 13 + k * 101) % 6_000)).join(' '),
      code: Array.from({ length: 8 }, (_, k) => word((i * 17 + k * 211) % 6_000)).join('\n'),
    }));
    const index = new SearchIndex(sections);
    for (const probe of [0, 7, 1_001, 2_345, 5_999]) {
      const term = word(probe);
      const holding = sections.filter((s) => [s.title, s.context, s.body, s.code].some((text) => text.split(/\s+/).includes(term))).map((s) => s.id);
      const found = index.search(term, { limit: 2_000 }).map((hit) => hit.index);
      expect(found.sort((a, b) => a - b)).toEqual(holding);
      expect(holding.length).toBeGreaterThan(0);
    }
  });
});

describe('bounded work per question', () => {
  const index = new SearchIndex([
    section(0, 'Widget', 'Embed the widget with one script tag.'),
    section(1, 'Proxy', 'The proxy holds the token.'),
    section(2, 'Zyxwvutsrqponmlkjihgfedcbak', 'A long made-up name.'),
  ]);

  it('reads at most MAX_QUERY_WORDS words of a text', () => {
    const text = Array.from({ length: 2_000 }, (_, i) => `w${i}`).join(' ');
    expect(index.terms(text)).toEqual(tokenize(text).slice(0, MAX_QUERY_WORDS));
  });

  it('reads the first misspelled words of a text as what they likely mean, and no more', () => {
    const terms = index.terms(Array.from({ length: 100 }, () => 'widgte').join(' '));
    const respelled = terms.filter((t) => t === index.terms('widget')[0]).length;
    expect(respelled).toBeGreaterThan(0);
    expect(respelled).toBeLessThan(100);
    expect(terms).toHaveLength(100);
  });

  it('counts each misspelled part of an identifier against the same bound', () => {
    const identifier = Array.from({ length: 40 }, () => 'Widgte').join('');
    const terms = index.terms(Array.from({ length: 20 }, () => identifier).join(' '));
    const respelled = terms.filter((t) => t === index.terms('widget')[0]).length;
    expect(respelled).toBeGreaterThan(0);
    expect(respelled).toBeLessThanOrEqual(MAX_RESPELLED_WORDS);
  });

  it('reads no long word as a misspelling (its edits grow with its length)', () => {
    expect(index.terms('zyxwvutsrqponmlkjihgfedcbk')).toEqual(tokenize('zyxwvutsrqponmlkjihgfedcbk'));
    expect(index.terms('zyxwvutsrqponmlkjihgfedcbk')).not.toEqual(index.terms('zyxwvutsrqponmlkjihgfedcbak'));
  });
});

describe('earlier turns', () => {
  const index = new SearchIndex([section(0, 'Widget', 'Embed the widget with one script tag.'), section(1, 'Proxy', 'The proxy holds the token.')]);

  it('keep the subject of a follow-up, read as written: never respelled again at each later turn', () => {
    expect(index.search('and on windows?', { history: ['the widget'] })[0]!.index).toBe(0);
    expect(index.search('and on windows?', { history: ['the widgte'] })).toEqual([]);
    expect(index.search('the widgte')[0]!.index).toBe(0);
  });
});

describe('the index between searches', () => {
  const doc = (id: number, title: string, body: string) => ({ id, title, context: '', body, code: '' });
  const sections = [
    doc(0, 'Account', 'To reset the password, open the account page. Reset links expire after a day.'),
    doc(1, 'Security', 'Password rules are strict. An owner can reset any member account.'),
    doc(2, 'Billing', 'Invoices are emailed each month.'),
  ];

  it('ranks each search afresh: the scores of one search never carry into the next', () => {
    const index = new SearchIndex(sections);
    const first = index.search('reset password account');
    index.search('password');
    index.search('invoices month');
    expect(index.search('reset password account')).toEqual(first);
    expect(new SearchIndex(sections).search('reset password account')).toEqual(first);
  });

  it('gives the bonus of a phrase to the section where the query’s adjacent words stand together', () => {
    const together = new SearchIndex([doc(0, 'A', 'reset password now'), doc(1, 'B', 'password now reset')]).search('reset password');
    expect(together.map((h) => h.index)).toEqual([0, 1]);
    expect(together[0]!.score).toBeGreaterThan(together[1]!.score);
    const apart = new SearchIndex([doc(0, 'A', 'reset password now'), doc(1, 'B', 'password now reset')], { phrases: false }).search('reset password');
    expect(apart[0]!.score).toBeCloseTo(apart[1]!.score, 9);
  });
});
