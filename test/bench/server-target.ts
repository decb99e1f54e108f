/**
 * @module The two servers the server benchmark loads, each in its own process so that neither
 * shares an event loop with the load generator: `ours` (the v0 server) or `bare` (node:http from memory).
 *
 * Ours runs as deployed: a database file in a data directory (WAL) and the JSON request log on
 * stdout, which the benchmark points at /dev/null. The line the benchmark reads goes to fd 3.
 */
import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../src/server/index.js';

/** Tells the benchmark where to send load (fd 3 is a pipe it reads; stdout carries the logs). */
function report(info: Record<string, string>): void {
  writeSync(3, `${JSON.stringify(info)}\n`);
}

const UNLIMITED = { perToken: 1e9, perOrganization: 1e9, perAddress: 1e9, endpoints: { send: 1e9, escalate: 1e9, deleteTicket: 1e9 } };

if (process.argv[2] === 'ours') {
  const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-bench-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const { url, server } = await startServer({
    dataDir,
    port: 0,
    rateLimits: UNLIMITED,
    engine: {
      answer: async () => ({ content: 'An answer.', sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }] }),
      summarize: async () => 'Summary',
      title: async () => 'Title',
      forgetTicket: async () => undefined,
    },
  });
  const { token } = await server.tokens.create({ orgId: 'bench', name: 'bench', scopes: ['chat:read', 'chat:write'] });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const sent = await fetch(`${url}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message: 'How do I benchmark?' }) });
  const { conversation_id } = (await sent.json()) as { conversation_id: string };
  let conversation = '';
  while (!conversation.includes('"completed"')) {
    await new Promise((r) => setTimeout(r, 20));
    conversation = await (await fetch(`${url}/v0/chat/${conversation_id}`, { headers })).text();
  }
  report({ url, token, conversationId: conversation_id, conversation });
  process.on('SIGINT', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
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
    report({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  });
}
