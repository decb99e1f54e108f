import { describe, expect, it } from 'vitest';
import { createSupportProxy } from '../../src/proxy/index.js';
import { testServer, type TestServer } from '../helpers/server.js';
import { servedValidator } from '../helpers/openapi.js';

const SITE = 'https://www.example.com';
const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const emoji = (n: number) => '😀'.repeat(n);

/** A server, a proxy in front of it (over the server's fetch handler), and the served document. */
async function stack() {
  const t = await testServer();
  const token = await t.token();
  const proxy = createSupportProxy({
    apiBaseUrl: 'http://api.test',
    token,
    secret: SECRET,
    fetch: async (input, init) => t.server.fetch(new Request(input, init), { remoteAddress: '127.0.0.1' }),
  });
  let cookie = '';
  const visitor = async (path: string, body: unknown) => {
    const response = await proxy(new Request(`${SITE}/api/support${path}`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) }));
    const set = response.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return { status: response.status, body: (await response.json()) as { conversation_id?: string; error?: { message: string } } };
  };
  const validator = await servedValidator(() => t.server.fetch(new Request('http://api.test/v0/openapi.json')));
  const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  return { t, token, visitor, validator, schema };
}

async function answered(t: TestServer, token: string) {
  const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'How do I rotate keys?' } });
  await t.answer();
  return sent.body.conversation_id as string;
}

describe('one definition of each field: the served document, the server and the proxy agree', () => {
  it('documents and enforces the escalation bounds (name, email, title, summary, label_type_ids) with the same words', async () => {
    const { t, token, validator, schema } = await stack();
    const id = await answered(t, token);
    const ok = { integration: 'webhook', name: 'Ada', email: 'ada@example.com' };
    expect(validator.errors({ ...ok, name: emoji(200), title: emoji(300), summary: emoji(20_000), additional_fields: { label_type_ids: Array(50).fill('l') } }, schema('EscalationRequest'))).toEqual([]);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, name: 'n'.repeat(201) }, '"name" must be at most 200 characters'],
      [{ ...ok, name: '   ' }, '"name" must not be empty'],
      [{ ...ok, email: `${'e'.repeat(310)}@example.com` }, '"email" must be at most 320 characters'],
      [{ ...ok, title: 't'.repeat(301) }, '"title" must be at most 300 characters'],
      [{ ...ok, summary: 's'.repeat(20_001) }, '"summary" must be at most 20000 characters'],
      [{ ...ok, additional_fields: { label_type_ids: Array(51).fill('l') } }, '"additional_fields.label_type_ids" must be an array of up to 50 non-empty strings'],
      [{ ...ok, additional_fields: { label_type_ids: [''] } }, '"additional_fields.label_type_ids" must be an array of up to 50 non-empty strings'],
      [{ ...ok, additional_fields: { label_type_ids: ['l'.repeat(201)] } }, '"additional_fields.label_type_ids" must be an array of up to 50 non-empty strings'],
    ];
    for (const [body, message] of cases) {
      expect(validator.errors(body, schema('EscalationRequest')), message).not.toEqual([]);
      const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body });
      expect([res.status, res.body.error.message]).toEqual([400, message]);
    }
  });

  it('documents the conversation_id a message continues: at most 128 characters of the issued shape', async () => {
    const { t, token, validator, schema } = await stack();
    expect(validator.errors({ message: 'hi', conversation_id: 'x'.repeat(129) }, schema('SendMessageRequest'))).not.toEqual([]);
    expect(validator.errors({ message: 'hi', conversation_id: 'a b' }, schema('SendMessageRequest'))).not.toEqual([]);
    expect(validator.errors({ message: 'hi', conversation_id: 'abc_DEF-1' }, schema('SendMessageRequest'))).toEqual([]);
    expect((await t.call('POST', '/v0/chat', { token, body: { message: 'hi', conversation_id: 'x'.repeat(129) } })).body.error.message).toBe('"conversation_id" must be at most 128 characters');
    expect((await t.call('POST', '/v0/chat', { token, body: { message: 'hi', conversation_id: 'a b' } })).status).toBe(404);
  });

  it('counts a feedback comment in characters (code points) in the document, the proxy and the server alike', async () => {
    const { t, token, visitor, validator, schema } = await stack();
    const sent = await visitor('/chat', { message: 'How do I rotate keys?' });
    expect(sent.status).toBe(202);
    await t.answer();
    const id = sent.body.conversation_id!;
    // 2,000 emoji are 4,000 UTF-16 units: within the limit for everyone.
    expect(validator.errors({ rating: 'up', comment: emoji(2000) }, schema('FeedbackRequest'))).toEqual([]);
    expect((await visitor(`/chat/${id}/feedback`, { rating: 'up', comment: emoji(2000) })).status).toBe(200);
    expect((await t.call('POST', `/v0/chat/${id}/feedback`, { token, body: { rating: 'up', comment: emoji(2000) } })).status).toBe(200);
    const over = { rating: 'up', comment: emoji(2001) };
    expect(validator.errors(over, schema('FeedbackRequest'))).not.toEqual([]);
    const viaProxy = await visitor(`/chat/${id}/feedback`, over);
    const direct = await t.call('POST', `/v0/chat/${id}/feedback`, { token, body: over });
    expect([viaProxy.status, viaProxy.body.error?.message]).toEqual([400, '"comment" must be at most 2000 characters']);
    expect([direct.status, direct.body.error.message]).toEqual([400, '"comment" must be at most 2000 characters']);
  });

  it('describes is_uncertain on assistant messages only', async () => {
    const { validator, schema } = await stack();
    const message = (extra: Record<string, unknown>) => ({ role: 'assistant', content: 'A', sources: [], ...extra });
    expect(validator.errors(message({ is_uncertain: true }), schema('Message'))).toEqual([]);
    expect(validator.errors(message({ is_uncertain: 'yes' }), schema('Message'))).not.toEqual([]);
    expect(validator.errors({ role: 'user', content: 'Q', sources: [], is_uncertain: false }, schema('Message'))).not.toEqual([]);
  });
});
