import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { SupportServer } from '../../src/server/index.js';
import { createSupportProxy } from '../../src/proxy/index.js';
import { ERROR_CODES } from '../../src/protocol/index.js';
import { check } from '../helpers/openapi.js';
import { fuzzTarget } from '../helpers/fuzz-target.js';
import { ALL_SCOPES } from '../helpers/server.js';

let server: SupportServer;
let token: string;
let conversationId: string;

beforeAll(async () => {
  ({ server, token, conversationId } = await fuzzTarget(ALL_SCOPES));
});
afterAll(async () => server.close());

const jsonish = fc.oneof(
  fc.string(),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.record({ message: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), conversation_id: fc.oneof(fc.string(), fc.constant(undefined)) }).map((v) => JSON.stringify(v)),
  fc.record(
    {
      integration: fc.oneof(fc.constantFrom('plain', 'pylon', 'linear', 'webhook'), fc.string()),
      email: fc.oneof(fc.emailAddress(), fc.string()),
      name: fc.string(),
      additional_fields: fc.oneof(fc.jsonValue(), fc.record({ priority: fc.integer(), label_type_ids: fc.array(fc.string()) })),
    },
    { requiredKeys: [] },
  ).map((v) => JSON.stringify(v)),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
);

const path = fc.oneof(
  fc.constantFrom('/v0/chat', '/v0/me', '/v0/tickets', '/v0/openapi.json', '/v0', '/', '/v0/chat/', '/v1/chat'),
  fc.string().map((s) => `/v0/chat/${encodeURIComponent(s)}`),
  fc.string().map((s) => `/v0/chat/${encodeURIComponent(s)}/escalate`),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `/v0/tickets/${encodeURIComponent(a)}/${encodeURIComponent(b)}`),
  fc.constant('CONVERSATION'),
  fc.constant('CONVERSATION/escalate'),
  fc.webPath(),
);

const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);

describe('bad input never causes a 5xx or loses data', () => {
  it('holds for random methods, paths, headers and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'),
        path,
        jsonish,
        fc.record(
          {
            auth: fc.oneof(fc.constant('valid'), fc.constant('none'), headerValue),
            contentType: fc.oneof(fc.constant('application/json'), headerValue),
            prefer: headerValue,
            idempotency: headerValue,
          },
          { requiredKeys: ['auth'] },
        ),
        async (method, rawPath, body, h) => {
          // A valid DELETE of the conversation is a real deletion (DELETE /v0/chat/{id}), not bad input.
          fc.pre(!(method === 'DELETE' && rawPath === 'CONVERSATION' && h.auth === 'valid'));
          const p = rawPath === 'CONVERSATION' ? `/v0/chat/${conversationId}` : rawPath === 'CONVERSATION/escalate' ? `/v0/chat/${conversationId}/escalate` : rawPath;
          const headers = new Headers();
          if (h.auth === 'valid') headers.set('authorization', `Bearer ${token}`);
          else if (h.auth !== 'none') headers.set('authorization', h.auth);
          if (h.contentType) headers.set('content-type', h.contentType);
          if (h.prefer) headers.set('prefer', h.prefer);
          if (h.idempotency) headers.set('idempotency-key', h.idempotency);
          const hasBody = method !== 'GET' && method !== 'HEAD';
          const response = await server.fetch(new Request(`http://x${p.startsWith('/') ? p : `/${p}`}`, { method, headers, body: hasBody ? body : undefined }), { remoteAddress: '192.0.2.1' });
          expect(response.status).toBeLessThan(500);
          expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
          if (response.status >= 400 && method !== 'HEAD') {
            const json = await response.json();
            expect(check(json, { $ref: '#/components/schemas/Error' })).toEqual([]);
            expect(ERROR_CODES).toContain((json as { error: { code: string } }).error.code);
          }
        },
      ),
      { numRuns: 400 },
    );
    // The conversation made before the storm is still there, unchanged or answered, never lost.
    const res = await server.fetch(new Request(`http://x/v0/chat/${conversationId}`, { headers: { authorization: `Bearer ${token}` } }));
    const conversation = (await res.json()) as { messages: { content: string }[] };
    expect(conversation.messages[0]!.content).toBe('keep me');
  });
});

describe('proxy and server refuse the same input with the same words', () => {
  it('holds for random message bodies', async () => {
    // The proxy in front of this very server: its answer to a body must be the server's own.
    const proxy = createSupportProxy({
      apiBaseUrl: 'http://api.test',
      token,
      secret: 'a-visitor-signing-secret-of-32-chars!!',
      retries: 0,
      visitorLimits: { messages: 1e9, newVisitorsPerAddress: 1e9, perAddress: 1e9 },
      fetch: (input, init) => server.fetch(new Request(input, init)),
    });
    const messageBody = fc.oneof(
      jsonish,
      fc.record({ message: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constantFrom('', ' ', '\n', '😀'.repeat(16_000), '😀'.repeat(16_001), 'x'.repeat(16_001)), fc.integer(), fc.constant(null)) }, { requiredKeys: [] }).map((v) =>
        JSON.stringify(v),
      ),
    );
    await fc.assert(
      fc.asyncProperty(messageBody, async (body) => {
        // A conversation_id the visitor does not own is the proxy's 404 by design; leave ids out.
        fc.pre(!/conversation_id/.test(body));
        const headers = { 'content-type': 'application/json' };
        const direct = await server.fetch(new Request('http://x/v0/chat', { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body }), { remoteAddress: '192.0.2.1' });
        const proxied = await proxy(new Request('https://www.example.com/api/support/chat', { method: 'POST', headers: { ...headers, origin: 'https://www.example.com' }, body }));
        expect(proxied.status).toBe(direct.status);
        if (direct.status >= 400) expect(await proxied.json()).toEqual(await direct.json());
      }),
      { numRuns: 300 },
    );
  });
});
