/** The answer decision reads a section's terms from the passage stored at ingest, not from its Markdown body again. */
import { describe, expect, it } from 'vitest';
import { answerSignals, termsOfSection } from '../../../src/server/answers/decision.js';
import { parseFile } from '../../../src/server/knowledge/ingest/parse.js';
import { tokenize, type SearchHit } from '../../../src/server/knowledge/index.js';

const PAGE = [
  '# Billing',
  '',
  '## Refunds',
  '',
  'Read [the guide](https://acme.dev/policy) first.',
  '',
  '- **Cards.** Paid back in 5 days.',
  '- **Transfers.** Paid back in 10 days.',
  '',
  '```sh',
  'acme refund --invoice 42',
  '```',
].join('\n');

/** The page's "Refunds" section as ingest stores it, with its body replaced: what the decision reads must come from the passage. */
function refundsHit(body: string): SearchHit {
  const parsed = parseFile(PAGE, 'billing.md', 'https://acme.dev/', 'https://acme.dev/billing')!;
  const section = parsed.sections.find((s) => s.title === 'Refunds')!;
  return { index: 0, score: 1, coverage: 1, section: { ...section, body, id: 1, docKey: 'file:billing.md', passage: section.passage! } };
}

describe("the decision's section terms", () => {
  it("are the passage's terms: its prose, its list items and its code, with their run-in labels named", () => {
    const terms = termsOfSection(refundsHit('Nothing about wombats here.'));
    for (const term of ['read', 'guid', 'pay', 'day', 'invoic']) expect(terms.all).toContain(term);
    expect(terms.all).not.toContain('wombat');
    // "Cards" and "Transfers" open list items in bold: they name what the items are about.
    expect(terms.named).toContain('card');
    expect(terms.named).toContain('transfer');
    expect(terms.named).not.toContain('pay');
    expect(terms.heading).toContain('refund');
    // "paid back" twice: counted as often as the passage says it.
    expect(terms.counts.get('pay')).toBe(2);
  });

  it('weigh a question by the passage, so a word only in a stale body counts for nothing', () => {
    const vocabulary = { has: () => true, sectionsWith: () => 1, readings: (text: string) => [text], terms: (text: string) => tokenize(text) };
    const signals = answerSignals('wombats', [refundsHit('Wombats, wombats.')], vocabulary)!;
    expect(signals.general).toBe(0);
    expect(signals.evidence).toBe(0);
  });
});
