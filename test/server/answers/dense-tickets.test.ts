/**
 * Synced tickets are private to the organization's agents: dense retrieval, which finds sections
 * that share no word with the question, never brings one to a visitor's search, however near its
 * meaning is; an agent's search (tickets asked for) finds it.
 */
import { describe, expect, it } from 'vitest';
import { Ranking, type RankedRows } from '../../../src/server/knowledge/ranking/rank.js';
import { passageOfMarkdown } from '../../../src/server/knowledge/index.js';
import type { SectionRow } from '../../../src/server/knowledge/ingest/sections.js';
import { loadSpecificity } from '../../../src/server/knowledge/text/specificity.js';

const near = new Int8Array(512).map((_, i) => ((i * 37) % 200) - 100);
const far = near.map((v) => -v);

function row(id: number, kind: 'doc' | 'ticket', body: string, vector: Int8Array): SectionRow {
  return {
    section: { id, docKey: `${kind}:${id}`, kind, title: `Section ${id}`, context: '', url: `https://docs.test/${id}`, body, code: '', lang: '', passage: passageOfMarkdown(body) },
    embedding: new Uint8Array(vector.buffer),
    embeddingBy: 'model',
  };
}

describe('dense retrieval', () => {
  it('leaves synced tickets out of a search that does not ask for them', async () => {
    await loadSpecificity();
    const stored = [row(1, 'doc', 'Invoices are sent by email.', far), row(2, 'ticket', 'A customer wrote about a refund.', near), row(3, 'doc', 'Exports run nightly.', far)];
    const store: RankedRows = { version: async () => 1, sections: async () => stored };
    const ranking = new Ranking(store, { id: 'model', question: async () => near });
    // No word of the query is in any section: only meaning finds them.
    const visitor = await ranking.search('acme', 'qwertyuiop', { vector: near });
    expect(visitor.map((hit) => hit.section.kind)).not.toContain('ticket');
    const agent = await ranking.search('acme', 'qwertyuiop', { vector: near, includeTickets: true });
    expect(agent[0]?.section.id).toBe(2);
  });
});
