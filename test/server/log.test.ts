/** The JSON request log: one parseable line per event, written in batches to stdout. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { batchedWriter, jsonLogger } from '../../src/server/log.js';

describe('jsonLogger', () => {
  it('writes one JSON line per event with time and level first, then the fields', () => {
    const lines: string[] = [];
    const logger = jsonLogger((line) => lines.push(line));
    logger.info({ msg: 'request', id: 'r1', status: 200, note: 'quote " and \\ and\nnewline', skipped: undefined });
    logger.warn({ msg: 'slow' });
    logger.error({ msg: 'broken', nested: { a: [1, 2] } });
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(parsed[0]!)).toEqual(['time', 'level', 'msg', 'id', 'status', 'note']);
    expect(parsed[0]).toMatchObject({ level: 'info', msg: 'request', id: 'r1', status: 200, note: 'quote " and \\ and\nnewline' });
    expect(parsed[1]).toMatchObject({ level: 'warn', msg: 'slow' });
    expect(parsed[2]).toMatchObject({ level: 'error', msg: 'broken', nested: { a: [1, 2] } });
    expect(Date.parse(parsed[0]!.time as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('batches lines until the end of the turn, in order, and flushes early past 64 KiB', async () => {
    const chunks: string[] = [];
    const write = batchedWriter((chunk) => chunks.push(chunk));
    write('a\n');
    write('b\n');
    expect(chunks).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(['a\nb\n']);
    write('x'.repeat(70_000));
    expect(chunks).toHaveLength(2);
    write('c\n');
    write.flush();
    expect(chunks).toEqual(['a\nb\n', 'x'.repeat(70_000), 'c\n']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(3);
  });

  it('writes stdout lines still waiting for their batch when the process exits', () => {
    const log = pathToFileURL(resolve(import.meta.dirname, '../../src/server/log.ts')).href;
    const script = `import { jsonLogger } from ${JSON.stringify(log)}; const l = jsonLogger(); l.info({ msg: 'one' }); l.info({ msg: 'two' }); process.exit(0);`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['one', 'two']);
  });
});
