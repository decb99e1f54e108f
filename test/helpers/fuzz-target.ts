/** @module The server that random-input tests run against: limits out of the way, a helpdesk that accepts every valid escalation, one answered conversation. */
import { createServer, type SupportServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import type { Scope } from '../../src/protocol/index.js';
import { createTestEngine } from './test-engine.js';

export async function fuzzTarget(scopes: Scope[]): Promise<{ server: SupportServer; token: string; conversationId: string }> {
  const server = await createServer({
    dataDir: ':memory:',
    engine: createTestEngine(),
    logger: silentLogger,
    startWorker: false,
    // Valid escalations are not bad input: they reach a helpdesk that accepts them.
    integrations: (_org, name) => ({ name, createTicket: async () => ({ ticketId: 'tkt_fuzz', ticketUrl: 'https://helpdesk.example.com/t/1' }) }),
    rateLimits: { perToken: 1e9, perOrganization: 1e9, perAddress: 1e9, endpoints: { send: 1e9, escalate: 1e9, deleteTicket: 1e9 } },
  });
  const token = (await server.tokens.create({ orgId: 'acme', name: 'fuzz', scopes })).token;
  const res = await server.fetch(new Request('http://api.test/v0/chat', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{"message":"keep me"}' }));
  const conversationId = ((await res.json()) as { conversation_id: string }).conversation_id;
  await server.worker.runOnce();
  return { server, token, conversationId };
}
