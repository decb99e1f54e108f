/** `kb ingest`'s progress (files, sections, rate, time left) and `kb stats`' line on the sentence embeddings. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { duration, IngestProgress } from '../../src/cli/commands/kb-progress.js';
import { runCli } from '../helpers/cli.js';

/** A stream keeping what was written, and a clock the test moves. */
function terminal(isTTY: boolean) {
  const written: string[] = [];
  const clock = { t: 1_000_000 };
  return { written, clock, stream: { isTTY, write: (text: string) => written.push(text) }, now: () => clock.t };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('ingest progress', () => {
  it('shows files, sections, their rate and the time left on a terminal, redrawn at most ten times a second', () => {
    const { written, clock, stream, now } = terminal(true);
    const progress = new IngestProgress({ stream, now });
    clock.t += 10_000;
    progress.update(100, 400, 'docs/guide/install.md', 300);
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('100/400 files · 300 sections · 30.0 sections/s · about 30 s left docs/guide/install.md');
    clock.t += 50;
    progress.update(101, 400, 'docs/guide/next.md', 303);
    expect(written).toHaveLength(1);
    progress.end();
    expect(written.at(-1)).toBe('\n');
  });

  it('off a terminal, prints nothing for a short ingest and a plain line every ten seconds for a long one', () => {
    const { written, clock, stream, now } = terminal(false);
    const progress = new IngestProgress({ stream, now });
    clock.t += 1000;
    progress.update(10, 20, 'a.md', 40);
    expect(written).toEqual([]);
    clock.t += 4000;
    progress.update(15, 400, 'b.md', 60);
    expect(written).toEqual(['ingest: 15/400 files · 60 sections · 12.0 sections/s · about 2 min left\n']);
    clock.t += 2000;
    progress.update(16, 400, 'c.md', 64);
    expect(written).toHaveLength(1);
    clock.t += 10_000;
    progress.update(40, 400, 'd.md', 160);
    expect(written).toHaveLength(2);
    progress.end();
    expect(written).toHaveLength(2);
  });

  it('reads durations as a person does', () => {
    expect([duration(400), duration(42_000), duration(150_000), duration(3_900_000)]).toEqual(['1 s', '42 s', '3 min', '1 h 5 min']);
  });
});

describe('kb stats', () => {
  it('says whether sentence embeddings work, and why not when they do not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-kb-stats-'));
    dirs.push(dir);
    const down = runCli(['kb', 'stats', '--org', 'acme'], dir, { ...process.env, SUPPORT_CHAT_EMBEDDING_THREADS: '0' });
    expect(down).toContain('sentence embeddings: unavailable (SUPPORT_CHAT_EMBEDDING_THREADS must be a whole number from 1 to 256, got "0"); search and answers rank by words alone');
    const up = runCli(['kb', 'stats', '--org', 'acme'], dir, { ...process.env, SUPPORT_CHAT_EMBEDDING_THREADS: '1' });
    expect(up).toContain('sentence embeddings: ready (a server runs 1 thread)');
  }, 60_000);
});
