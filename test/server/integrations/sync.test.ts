/**
 * Ticket sync from Plain, Pylon and Linear: pagination as each API documents it, incremental
 * cursors, resuming after a failure, and deleted tickets coming back while they still exist.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createAnswerEngine, type KnowledgeBase } from '../../../src/server/answers/index.js';
import { IntegrationError } from '../../../src/server/escalation/index.js';
import { connectorFor, htmlToText, syncTickets } from '../../../src/server/tickets/sync.js';
import { fakeLinear } from '../../helpers/fake-linear.js';
import { fakePlain } from '../../helpers/fake-plain.js';
import { fakePylon } from '../../helpers/fake-pylon.js';
import { testServer, type TestServer } from '../../helpers/server.js';
import { leastTime } from '../../helpers/least-time.js';

let t: TestServer | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await t?.server.close();
  t = undefined;
  while (closers.length) await closers.pop()!();
});

async function server() {
  t = await testServer({ env: {} });
  return t;
}

async function allTickets(s: TestServer, source: string) {
  const token = await s.token();
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await s.call('GET', `/v0/tickets?source=${source}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token });
    ids.push(...(res.body.tickets as { external_id: string }[]).map((x) => x.external_id));
    cursor = res.body.next_cursor;
  } while (cursor);
  return ids.sort();
}

describe('Plain sync', () => {
  it('imports every thread page by page, then only new ones; a deleted thread comes back while it exists in Plain', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    const s = await server();
    for (let i = 0; i < 120; i++) plain.addThread({ title: `Thread ${i}`, customerEmail: `c${i}@example.com`, previewText: `Preview ${i}` });
    const connector = () => connectorFor('plain', { apiKey: plain.apiKey, apiUrl: plain.apiUrl });

    const first = await syncTickets(s.server.tickets, 'acme', connector());
    expect(first).toMatchObject({ imported: 120, pages: 3, restored: 0 });
    expect(await allTickets(s, 'plain')).toEqual(plain.threads.map((x) => x.id).sort());
    const token = await s.token();
    const one = plain.threads[7]!;
    const got = await s.call('GET', `/v0/tickets/plain/${one.id}`, { token });
    expect(got.body).toMatchObject({
      source: 'plain',
      external_id: one.id,
      title: 'Thread 7',
      status: 'todo',
      url: `https://app.plain.com/workspace/${plain.workspaceId}/thread/${one.id}`,
      customer_email: 'c7@example.com',
    });

    plain.addThread({ title: 'New one', customerEmail: 'new@example.com' });
    const before = plain.requests.length;
    const second = await syncTickets(s.server.tickets, 'acme', connector());
    expect(second.imported).toBe(1);
    expect(plain.requests.slice(before).filter((r) => r.operation === 'threads')).toHaveLength(1);

    // Deleted here but still in Plain: the next sync imports it again.
    expect((await s.call('DELETE', `/v0/tickets/plain/${one.id}`, { token })).status).toBe(204);
    expect((await s.call('GET', `/v0/tickets/plain/${one.id}`, { token })).status).toBe(404);
    // Deleted here and gone from Plain too: it stays deleted.
    const gone = plain.threads.splice(3, 1)[0]!;
    expect((await s.call('DELETE', `/v0/tickets/plain/${gone.id}`, { token })).status).toBe(204);
    const third = await syncTickets(s.server.tickets, 'acme', connector());
    expect(third).toMatchObject({ imported: 0, restored: 1 });
    expect((await s.call('GET', `/v0/tickets/plain/${one.id}`, { token })).status).toBe(200);
    expect((await s.call('GET', `/v0/tickets/plain/${gone.id}`, { token })).status).toBe(404);
    // Asked once: a later sync does not ask about them again.
    const fourth = await syncTickets(s.server.tickets, 'acme', connector());
    expect(fourth).toMatchObject({ imported: 0, restored: 0 });
  });

  it('resumes after a failure from the last page it stored, and --full reads everything again', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    const s = await server();
    for (let i = 0; i < 120; i++) plain.addThread({ title: `Thread ${i}`, customerEmail: `c${i}@example.com` });
    const connector = () => connectorFor('plain', { apiKey: plain.apiKey, apiUrl: plain.apiUrl, workspaceId: plain.workspaceId });
    let calls = 0;
    plain.failNext({ mode: 'status', status: 503 }, 'threads');
    await expect(syncTickets(s.server.tickets, 'acme', connector())).rejects.toMatchObject({ retryable: true });
    // The first page failed: nothing stored. Now let page two fail.
    await expect(
      (async () => {
        const c = connector();
        const original = c.changes.bind(c);
        c.changes = async function* (cursor) {
          for await (const page of original(cursor)) {
            if (calls++ === 1) throw new IntegrationError('Plain answered 503', { retryable: true });
            yield page;
          }
        };
        return syncTickets(s.server.tickets, 'acme', c);
      })(),
    ).rejects.toBeInstanceOf(IntegrationError);
    expect(await allTickets(s, 'plain')).toHaveLength(50);
    const resumed = await syncTickets(s.server.tickets, 'acme', connector());
    expect(resumed.imported).toBe(70);
    expect(await allTickets(s, 'plain')).toHaveLength(120);
    const full = await syncTickets(s.server.tickets, 'acme', connector(), { full: true });
    expect(full.imported).toBe(120);
  });
});

describe('synced tickets in the knowledge index', () => {
  it('indexes a synced ticket’s text, and deleting the ticket removes it from the index', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    let kb: KnowledgeBase | undefined;
    t = await testServer({
      env: {},
      engine: (sql) => {
        const engine = createAnswerEngine({ sql, llm: null });
        kb = engine;
        return engine;
      },
    });
    const thread = plain.addThread({ title: 'Quarterly invoice reconciliation', customerEmail: 'x@example.com', previewText: 'The reconciliation report double counts refunds' });
    await syncTickets(t.server.tickets, 'acme', connectorFor('plain', { apiKey: plain.apiKey, apiUrl: plain.apiUrl }));
    const found = await kb!.search('acme', 'reconciliation report refunds', { includeTickets: true });
    expect(found.map((h) => h.section.title)).toContain('Quarterly invoice reconciliation');
    // Answers never draw on tickets: they hold other customers' words.
    expect((await kb!.search('acme', 'reconciliation report refunds')).map((h) => h.section.title)).not.toContain('Quarterly invoice reconciliation');
    expect((await t.call('DELETE', `/v0/tickets/plain/${thread.id}`, { token: await t.token() })).status).toBe(204);
    expect((await kb!.search('acme', 'reconciliation report refunds', { includeTickets: true })).map((h) => h.section.title)).not.toContain('Quarterly invoice reconciliation');
  });
});

describe('Pylon sync', () => {
  it('pages through issue search, stores the text of the HTML body, and continues from the newest issue seen', async () => {
    const pylon = await fakePylon();
    closers.push(() => pylon.close());
    const s = await server();
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
    for (let i = 0; i < 150; i++) pylon.addIssue({ title: `Issue ${i}`, body_html: `<p>Body &amp; ${i}</p>`, created_at: minutesAgo(150 - i) });
    const connector = () => connectorFor('pylon', { apiKey: pylon.apiKey, apiUrl: pylon.apiUrl });
    const first = await syncTickets(s.server.tickets, 'acme', connector());
    expect(first).toMatchObject({ imported: 150, pages: 2 });
    expect(await allTickets(s, 'pylon')).toEqual(pylon.issues.map((x) => x.id).sort());
    const token = await s.token();
    const issue = pylon.issues[0]!;
    expect((await s.call('GET', `/v0/tickets/pylon/${issue.id}`, { token })).body).toMatchObject({ source: 'pylon', title: 'Issue 0', status: 'new', url: issue.link });

    pylon.addIssue({ title: 'Later' });
    const second = await syncTickets(s.server.tickets, 'acme', connector());
    // The newest issue of the last sync is read again (one second of overlap), never missed.
    expect(second.imported).toBeLessThanOrEqual(2);
    expect(await allTickets(s, 'pylon')).toHaveLength(151);

    expect((await s.call('DELETE', `/v0/tickets/pylon/${issue.id}`, { token })).status).toBe(204);
    expect((await syncTickets(s.server.tickets, 'acme', connector())).restored).toBe(1);
    expect((await s.call('GET', `/v0/tickets/pylon/${issue.id}`, { token })).status).toBe(200);
  });

  it('turns HTML into plain text for the index', () => {
    expect(htmlToText('<h2>Summary</h2><p>a &lt;b&gt; &amp; c<br>d</p><ul><li>x</li></ul>')).toBe('Summary\na <b> & c\nd\nx');
  });

  it('reads hostile HTML in time linear in its length (runs of <, of spaces, of nested tags)', () => {
    expect(htmlToText('<p>caf&eacute; &rsquo;  x</p><script>alert(1)</script><p>y</p>')).toBe('café ’  x\ny');
    const shapes: ((n: number) => string)[] = [(n) => '<'.repeat(n), (n) => `<p>${' '.repeat(n)}x</p>`, (n) => '<b>'.repeat(n / 3), (n) => '<a '.repeat(n / 3)];
    for (const shape of shapes) {
      const small = leastTime(() => htmlToText(shape(16_000)));
      const large = leastTime(() => htmlToText(shape(64_000)));
      // Four times the input may take about four times as long; a quadratic cost takes sixteen.
      expect(large, shape(9)).toBeLessThan(Math.max(small, 1) * 10);
    }
  });
});

describe('Linear sync', () => {
  it('reads the team’s issues updated since the last sync, so an edited issue is updated', async () => {
    const linear = await fakeLinear();
    closers.push(() => linear.close());
    const s = await server();
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
    for (let i = 0; i < 130; i++) linear.addIssue({ title: `Issue ${i}`, description: `Text ${i}`, createdAt: minutesAgo(200 - i), updatedAt: minutesAgo(130 - i) });
    linear.addIssue({ title: 'Another team', teamId: 'other-team' });
    const connector = () => connectorFor('linear', { apiKey: linear.apiKey, apiUrl: linear.apiUrl, teamId: linear.teamId });
    const first = await syncTickets(s.server.tickets, 'acme', connector());
    expect(first).toMatchObject({ imported: 130, pages: 2 });
    const edited = linear.issues[5]!;
    linear.touch(edited.id, { title: 'Renamed', stateName: 'Done' });
    const second = await syncTickets(s.server.tickets, 'acme', connector());
    // The edited issue, and the newest of the last sync read again by the one-second overlap.
    expect(second.imported).toBe(2);
    expect((await s.call('GET', `/v0/tickets/linear/${edited.id}`, { token: await s.token() })).body).toMatchObject({ title: 'Renamed', status: 'Done' });
  });

  it('refuses to sync without a team, naming LINEAR_TEAM_ID', () => {
    expect(() => connectorFor('linear', { apiKey: 'lin_api_x' })).toThrow(/LINEAR_TEAM_ID/);
  });
});

describe('support-chat-kit tickets sync', () => {
  const cli = resolve(import.meta.dirname, '../../../src/cli/index.ts');
  const run = promisify(execFile);

  it('syncs with settings from the environment or `integrations set`, and reports clearly when misconfigured', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    plain.addThread({ title: 'From Plain', customerEmail: 'x@example.com' });
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-sync-'));
    closers.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const cmd = (args: string[], env: Record<string, string> = {}) =>
      run(process.execPath, ['--import', 'tsx', cli, ...args, '--data', dataDir], { encoding: 'utf8', env: { ...process.env, SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', PLAIN_API_KEY: '', PLAIN_API_URL: '', ...env } }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );

    const missing = await cmd(['tickets', 'sync', '--source', 'plain', '--org', 'acme']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Plain integration is not configured: set PLAIN_API_KEY');
    const badSource = await cmd(['tickets', 'sync', '--source', 'zendesk', '--org', 'acme']);
    expect(badSource.code).toBe(2);
    expect(badSource.stderr).toContain('--source must be one of plain, pylon, linear');

    const set = await cmd(['integrations', 'set', 'plain', '--org', 'acme', '--api-key', plain.apiKey, '--api-url', plain.apiUrl]);
    expect(set.code).toBe(0);
    expect(set.stdout).not.toContain(plain.apiKey);
    const synced = await cmd(['tickets', 'sync', '--source', 'PLAIN', '--org', 'acme', '--json']);
    expect(synced.code).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ source: 'plain', imported: 1 });
    const listed = await cmd(['tickets', 'list', '--org', 'acme', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ source: 'plain', external_id: plain.threads[0]!.id, title: 'From Plain' })]);

    const wrongFlag = await cmd(['integrations', 'set', 'plain', '--org', 'acme', '--team-id', 'x']);
    expect(wrongFlag.code).toBe(2);
    expect(wrongFlag.stderr).toContain('plain has no setting --team-id');
    const shown = await cmd(['integrations', 'show', 'plain', '--org', 'acme', '--json']);
    expect(JSON.parse(shown.stdout)).toEqual([{ integration: 'plain', settings: { 'api-key': `…${plain.apiKey.slice(-4)}`, 'api-url': plain.apiUrl }, from: { 'api-key': 'organization', 'api-url': 'organization' } }]);
  }, 30_000);
});
