/** @module The request headers proxy and server read alike: `Authorization: Bearer` and `Prefer: wait`. */
import { describe, expect, it } from 'vitest';
import { MAX_AUTHORIZATION_LENGTH, parseBearer, parsePreferWait } from '../../src/protocol/index.js';

describe('parseBearer', () => {
  it.each([
    ['Bearer abc.def-ghi', 'abc.def-ghi'],
    ['bearer   tok', 'tok'],
    ['BEARER tok', 'tok'],
    ['Bearer', null],
    ['Bearer ', null],
    ['Bearertok', null],
    ['Basic dXNlcg==', null],
    ['Bearer a b', null],
    ['Bearer tök', null],
    ['', null],
    [null, null],
  ])('reads %j as %j', (header, token) => {
    expect(parseBearer(header)).toBe(token);
  });

  it('refuses a header past its length bound at once, and reads the longest allowed in one pass', () => {
    const longest = `Bearer ${'a'.repeat(MAX_AUTHORIZATION_LENGTH - 7)}`;
    expect(parseBearer(longest)).toHaveLength(MAX_AUTHORIZATION_LENGTH - 7);
    expect(parseBearer(`${longest}a`)).toBeNull();
    // The worst input: many spaces after the scheme, then a bad character; still one pass.
    expect(parseBearer(`Bearer ${' '.repeat(MAX_AUTHORIZATION_LENGTH - 8)}\t`)).toBeNull();
  });
});

describe('parsePreferWait', () => {
  it.each([
    ['wait=5', 5],
    ['respond-async, wait=15', 15],
    ['WAIT = 7 ; foo=bar', 7],
    ['wait=300', 20],
    ['wait=999999', 20],
    ['wait=1234567', null],
    ['wait=', null],
    ['wait=-1', null],
    ['wait=1.5', null],
    ['wait', null],
    ['waiting=5', null],
    ['handling=lenient; wait=5', null],
    [null, null],
  ])('reads %j as %j (capped at 20)', (header, seconds) => {
    expect(parsePreferWait(header, 20)).toBe(seconds);
  });

  it('reads a megabyte of preferences in one pass', () => {
    const header = `${'x=1,'.repeat(250_000)}wait=3`;
    expect(parsePreferWait(header, 20)).toBe(3);
    expect(parsePreferWait(`wait=${'9'.repeat(1_000_000)}`, 20)).toBeNull();
  });
});
