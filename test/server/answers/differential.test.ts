/**
 * Differential over every fixture corpus the tests ingest: the searches and questions those tests
 * ask, and a search for each page heading, asked again and compared with the record made on the
 * commit before the passage model (differential.json, written by test/bench/differential.ts).
 * What was right stays right: the source a test expects where it states one, else the same first
 * source (and, for a reply, the same answered or uncertain) as recorded. A change to something
 * right fails unless the record's `accepted` list names it with the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPORA, meets, observe, probeKey, type Observation, type Probe } from '../../bench/differential.js';

interface Record {
  /** The commit the observations were made on. */
  recordedOn: string;
  /** Changes to what was right, each named by `probeKey` with why it is accepted. */
  accepted: { probe: string; reason: string }[];
  /** Changes that leave what was right as it was (a search's later results), and why. */
  notes: string[];
  observations: Observation[];
}

const record = JSON.parse(readFileSync(join(import.meta.dirname, 'differential.json'), 'utf8')) as Record;

/** Whether `now` is as right as `before` was: the expected source where a test states one, else the same first source and outcome. */
function stillRight(before: Observation, now: Observation): boolean {
  if (before.expect) return !meets(before, before.expect) || meets(now, before.expect);
  return now.first === before.first && now.uncertain === before.uncertain;
}

const describeChange = (before: Observation, now: Observation) =>
  `${probeKey(before)}\n    before: ${before.first ?? 'nothing'}${before.uncertain ? ' (uncertain)' : ''} [${before.top.join(', ')}]\n    now:    ${now.first ?? 'nothing'}${now.uncertain ? ' (uncertain)' : ''} [${now.top.join(', ')}]`;

describe('searches and replies on the fixture corpora, against the record before the passage model', () => {
  it('keeps what was right right; every change to it is accepted with a reason', async () => {
    const recorded = (corpus: string) => record.observations.filter((o) => o.corpus === corpus);
    const probes = (name: string): Probe[] => recorded(name).map((o) => ({ kind: o.kind, turns: o.turns, from: o.from, ...(o.pageUrl ? { pageUrl: o.pageUrl } : {}), ...(o.expect ? { expect: o.expect } : {}) }));
    const now = await observe(CORPORA, (corpus) => probes(corpus.name));
    expect(now.map(probeKey)).toEqual(record.observations.map(probeKey));

    const accepted = new Map(record.accepted.map((a) => [a.probe, a.reason]));
    for (const { probe } of record.accepted) expect(record.observations.map(probeKey), `an accepted change names a recorded probe: ${probe}`).toContain(probe);
    const changed: string[] = [];
    const broken: string[] = [];
    record.observations.forEach((before, i) => {
      const after = now[i]!;
      const same = after.first === before.first && after.uncertain === before.uncertain && after.top.join() === before.top.join();
      if (!same) changed.push(describeChange(before, after) + (accepted.has(probeKey(before)) ? `\n    accepted: ${accepted.get(probeKey(before))}` : ''));
      if (!stillRight(before, after) && !accepted.has(probeKey(before))) broken.push(describeChange(before, after));
    });
    // What changed, right or not, for the reader of the test's output.
    console.log(`${record.observations.length} searches and replies, ${changed.length} changed since ${record.recordedOn}:\n${changed.join('\n')}`);
    expect(broken, 'right before, not right now, and not accepted').toEqual([]);
    expect(record.observations.filter((o) => o.expect).length).toBeGreaterThan(30);
  }, 900_000);
});
