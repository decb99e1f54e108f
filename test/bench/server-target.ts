/**
 * @module The two servers the server benchmark loads, each in its own process so that neither
 * shares an event loop with the load generator: `ours` (the v0 server) or `bare` (node:http from memory).
 */
import { createServer } from 'node:http';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/http/log.js';

const UNLIMITED = { perToken: 1e9, perOrganization: 1e9, perAddress: 1e9, endpoints: { send: 1e9, escalate: 1e9, deleteTicket: 1e9 } };

if (process.argv[2] === 'ours') {
  const { url, server } = await startServer({
    dataDir: ':memory:',
    port: 0,
    logger: silentLogger,
    rateLimits: UNLIMITED,
    engine: {
      answer: async () => ({ content: 'An answer.', sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }] }),
      summarize: async () => 'Summary',
      title: async () => 'Title',
      forgetTicket: async () => undefined,
    },
  });
  const { token } = server.tokens.create({ orgId: 'bench', name: 'bench', scopes: ['chat:read', 'chat:write'] });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const sent = await fetch(`${url}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message: 'How do I benchmark?' }) });
  const { conversation_id } = (await sent.json()) as { conversation_id: string };
  let conversation = '';
  while (!conversation.includes('"completed"')) {
    await new Promise((r) => setTimeout(r, 20));
    conversation = await (await fetch(`${url}/v0/chat/${conversation_id}`, { headers })).text();
  }
  console.log(JSON.stringify({ url, token, conversationId: conversation_id, conversation }));
  process.on('SIGINT', () => process.exit(0));
} else {
  const { conversation, conversationId } = JSON.parse(process.argv[3]!) as { conversation: string; conversationId: string };
  const accepted = JSON.stringify({ conversation_id: conversationId, status: 'processing' });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const post = req.method === 'POST';
      res.writeHead(post ? 202 : 200, { 'content-type': 'application/json' });
      res.end(post ? accepted : conversation);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    console.log(JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }));
  });
}
