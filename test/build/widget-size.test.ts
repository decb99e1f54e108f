/** The widget's size budget (issue 28): the classic-script bundle, Lit and the Markdown renderer included, ≤ 25 KB gzipped. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildWidget } from '../helpers/build-widget.js';

const BUDGET_BYTES = 25 * 1024;
let out: string;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-size-'));
  await buildWidget(out, ['iife']);
}, 300_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('the widget bundle', () => {
  it('is at most 25 KB gzipped (level 9, as the benchmark measures it)', () => {
    const iife = readFileSync(join(out, 'support-chat.iife.js'));
    const gzipped = gzipSync(iife, { level: 9 }).length;
    expect(iife.length).toBeGreaterThan(10_000);
    expect(gzipped, `support-chat.iife.js is ${(gzipped / 1024).toFixed(1)} KB gzipped`).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
