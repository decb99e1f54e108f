/**
 * The `webhook` integration's ticket link, through the real server: a receiver that answers 2xx
 * without a link (Slack, Zapier and n8n hooks do) must not make its own address — a capability
 * URL whose path and query are the secret — the visitor's `ticket_url`.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../helpers/server.js';

let t: TestServer | undefined;
let hook: Server | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
  hook?.closeAllConnections();
  await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
  hook = undefined;
});

/** A hook that answers every delivery with `reply(target)`; its address carries a secret path and query. */
async function hookAnswering(reply: (target: string) => { type: string; body: string }): Promise<string> {
  let target = '';
  hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { type, body } = reply(target);
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => hook!.listen(0, '127.0.0.1', resolve));
  const address = hook.address();
  target = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/services/T0SECRET/B0SECRET/xoxSECRETPATH?token=QUERYSECRET`;
  return target;
}

async function escalate(target: string) {
  t = await testServer({ env: { SUPPORT_CHAT_WEBHOOK_URL: target, SUPPORT_CHAT_WEBHOOK_SECRET: 's3cret' }, integrations: undefined });
  const token = await t.token();
  const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'My invoice is wrong' } });
  await t.answer();
  return t.call('POST', `/v0/chat/${sent.body.conversation_id}/escalate`, { token, body: { integration: 'webhook', name: 'Ada', email: 'ada@example.com' } });
}

describe('webhook ticket_url', () => {
  it.each([
    ['an empty body', () => ({ type: 'text/plain', body: '' })],
    ['Slack\'s "ok"', () => ({ type: 'text/plain', body: 'ok' })],
    ['JSON without a url', () => ({ type: 'application/json', body: '{"ok":true}' })],
    ['its own address', (target: string) => ({ type: 'application/json', body: JSON.stringify({ url: target }) })],
    ['its own address with a fragment', (target: string) => ({ type: 'application/json', body: JSON.stringify({ url: `${target}#tkt_1` }) })],
    ...(
      [
        ['with a trailing slash', (u: URL) => (u.pathname += '/')],
        ['with a doubled slash', (u: URL) => (u.pathname = `/${u.pathname}`)],
        ['with a percent-encoded letter', (u: URL) => (u.pathname = u.pathname.replace('/services', '/%73ervices'))],
        ['as localhost', (u: URL) => (u.hostname = 'localhost')],
        ['as LOCALHOST. (a trailing dot)', (u: URL) => (u.hostname = 'LOCALHOST.')],
        ['as [::1]', (u: URL) => (u.hostname = '[::1]')],
        ['as [::ffff:127.0.0.1]', (u: URL) => (u.hostname = '[::ffff:127.0.0.1]')],
        ['as 127.1', (u: URL) => (u.hostname = '127.1')],
        ['as 127.0.0.2 on another port', (u: URL) => ((u.hostname = '127.0.0.2'), (u.port = '9'))],
        ['as another path on its host', (u: URL) => ((u.pathname = '/tickets/42'), (u.search = ''))],
      ] as const
    ).map(([spelling, respell]): [string, (target: string) => { type: string; body: string }] => [
      `its own address ${spelling}`,
      (target: string) => {
        const url = new URL(target);
        respell(url);
        return { type: 'application/json', body: JSON.stringify({ url: url.href }) };
      },
    ]),
    ['a javascript: link', () => ({ type: 'application/json', body: JSON.stringify({ url: 'javascript:alert(1)' }) })],
    ['a link that is not a URL', () => ({ type: 'application/json', body: JSON.stringify({ url: 'https://' }) })],
    ['a link past 2,048 characters', () => ({ type: 'application/json', body: JSON.stringify({ url: `https://desk.example.com/${'a'.repeat(2100)}` }) })],
  ])('is empty, never the hook, when the receiver answers %s', async (_, reply) => {
    const target = await hookAnswering(reply);
    const res = await escalate(target);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, integration: 'webhook', ticket_id: expect.stringMatching(/^tkt_/), ticket_url: '' });
    const text = JSON.stringify(res.body);
    for (const secret of ['SECRET', '127.0.0.', 'services', 'localhost', '::1', 'tickets']) expect(text).not.toContain(secret);
  });

  it("is the receiver's own link when it answers one", async () => {
    const target = await hookAnswering(() => ({ type: 'application/json', body: JSON.stringify({ url: 'https://desk.example.com/tickets/42' }) }));
    const res = await escalate(target);
    expect(res.body.ticket_url).toBe('https://desk.example.com/tickets/42');
  });
});
