/**
 * The held-out bench sets: read at their pinned commit from a clone or a bare git directory, or
 * skipped; and the questions' gold is what the engine indexes (checked when a copy is present).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { migrations } from '../../../src/server/schema.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { openSql } from '../../../src/server/store/sql.js';
import { extraSets, PLAUSIBLE, type ExtraSource } from './extra.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd }).toString().trim();

/** A repository with a `docs/` page at a first commit (returned) and a changed page at a second. */
function repository(): { path: string; first: string } {
  const path = mkdtempSync(join(tmpdir(), 'support-chat-extra-'));
  dirs.push(path);
  git(path, 'init', '-q');
  mkdirSync(join(path, 'docs'));
  writeFileSync(join(path, 'docs/page.md'), '# Pinned\n\nThe pinned text.\n');
  git(path, 'add', '.');
  git(path, 'commit', '-qm', 'first');
  const first = git(path, 'rev-parse', 'HEAD');
  writeFileSync(join(path, 'docs/page.md'), '# Later\n\nA later text.\n');
  git(path, 'commit', '-qam', 'second');
  return { path, first };
}

/** The held-out set read from `path` at `commit`, through the environment variable the bench reads. */
function source(path: string, commit: string): ExtraSource {
  vi.stubEnv('SUPPORT_CHAT_TEST_EXTRA', path);
  return { ...PLAUSIBLE, env: 'SUPPORT_CHAT_TEST_EXTRA', commit };
}

describe('held-out sets', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('reads the pinned commit from a clone at another commit, and a bare copy', () => {
    const { path, first } = repository();
    const [set] = extraSets([source(path, first)]);
    expect(set?.root).not.toBe(join(path, 'docs'));
    expect(readFileSync(join(set!.root, 'page.md'), 'utf8')).toContain('The pinned text.');
    const bare = `${path}-bare`;
    dirs.push(bare);
    execFileSync('git', ['clone', '-q', '--bare', path, bare]);
    const [fromBare] = extraSets([source(bare, first)]);
    expect(readdirSync(fromBare!.root)).toEqual(['page.md']);
    expect(readFileSync(join(fromBare!.root, 'page.md'), 'utf8')).toContain('The pinned text.');
    expect(fromBare!.questions.length).toBeGreaterThan(0);
  });

  it('reads a clean clone at the pinned commit in place, and a changed one at the commit', () => {
    const { path, first } = repository();
    git(path, 'checkout', '-q', first);
    expect(extraSets([source(path, first)])[0]?.root).toBe(join(path, 'docs'));
    writeFileSync(join(path, 'docs/page.md'), 'edited');
    const [set] = extraSets([source(path, first)]);
    expect(set?.root).not.toBe(join(path, 'docs'));
    expect(readFileSync(join(set!.root, 'page.md'), 'utf8')).toContain('The pinned text.');
  });

  it('skips, saying why, without the variable, without a copy or without the pinned commit', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { path } = repository();
    expect(extraSets([{ ...PLAUSIBLE, env: 'SUPPORT_CHAT_TEST_NO_SUCH_VARIABLE' }])).toEqual([]);
    expect(extraSets([source(join(path, 'absent'), PLAUSIBLE.commit)])).toEqual([]);
    expect(extraSets([source(path, PLAUSIBLE.commit)])).toEqual([]);
    expect(log.mock.calls.map(([line]) => String(line))).toEqual([
      'engine: set plausible skipped: SUPPORT_CHAT_TEST_NO_SUCH_VARIABLE is not set (set it to a clone or a bare git directory of https://github.com/plausible/docs)',
      expect.stringMatching(/^engine: set plausible skipped: no copy of https:\/\/github.com\/plausible\/docs at .*absent/),
      expect.stringMatching(/^engine: set plausible skipped: .* does not hold commit 208d58c/),
    ]);
    log.mockRestore();
  });
});

interface Question {
  kind: string;
  gold: string[];
  gold_pages: string[];
  keywords: string[];
}

describe.skipIf(!existsSync(process.env[PLAUSIBLE.env] ?? ''))('plausible questions', () => {
  it('name sections and pages the engine indexes, with keywords from their gold sections', async () => {
    const [set] = extraSets();
    const sql = await openSql({ dataDir: ':memory:' });
    await migrate(sql, migrations);
    await createAnswerEngine({ sql, llm: null, embedder: null }).ingest('p', [set!.root], { baseUrl: set!.baseUrl });
    const sections = new Map(
      (await sql.all<{ url: string; title: string; body: string }>('SELECT url, title, body FROM kb_sections')).map((s) => [s.url, `${s.title}\n${s.body}`.toLowerCase()]),
    );
    const pages = new Set([...sections.keys()].map((url) => url.split('#')[0]));
    const questions = set!.questions as Question[];
    expect(questions.filter((q) => q.kind === 'answerable').length).toBeGreaterThanOrEqual(40);
    for (const q of questions) {
      expect(q.gold.filter((g) => !sections.has(g))).toEqual([]);
      expect(q.gold_pages.filter((p) => !pages.has(p))).toEqual([]);
      expect(q.keywords.filter((k) => !q.gold.some((g) => sections.get(g)!.includes(k.toLowerCase())))).toEqual([]);
    }
    await sql.close();
  });
});
