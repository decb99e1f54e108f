/**
 * `support-chat-kit mcp` over stdio, driven by the SDK's own `Client` (StdioClientTransport) against
 * the real CLI on a knowledge base ingested with the CLI: each tool, the organization's own docs
 * only, and stdout carrying protocol messages alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const root = resolve(import.meta.dirname, '../..');
const cli = resolve(root, 'src/cli/index.ts');
const BASE = 'https://docs.acme.example/';
const dataDir = mkdtempSync(join(tmpdir(), 'sc-mcp-'));
// No LLM: answers are composed locally from the docs.
const env = { ...process.env, SUPPORT_CHAT_LLM_BASE_URL: '', SUPPORT_CHAT_DATABASE_URL: '' };
const args = (org: string) => ['--import', 'tsx', cli, 'mcp', '--org', org, '--data', dataDir];
const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

const clients: Client[] = [];
/** A client of `support-chat-kit mcp --org ORG`, and what the process wrote to stderr. */
async function connect(org: string) {
  const transport = new StdioClientTransport({ command: process.execPath, args: args(org), cwd: root, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'mcp-cli-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  clients.push(client);
  return { client, errors, stderr: () => stderr };
}

beforeAll(() => {
  runCli(['kb', 'ingest', 'test/fixtures/products', '--org', 'acme', '--base-url', BASE], dataDir, env);
  runCli(['kb', 'ingest', 'test/fixtures/kb-two-pages', '--org', 'globex', '--base-url', 'https://docs.globex.example/'], dataDir, env);
}, 120_000);
// Each test's server stops with it: a server left running shares the database, and its worker
// would answer (and log) questions another test's process queued.
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('support-chat-kit mcp', () => {
  it('serves search_docs, read_page and ask from the local knowledge base, logging to stderr alone', async () => {
    const { client, errors, stderr } = await connect('acme');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask', 'read_page', 'search_docs']);
    const search = await client.callTool({ name: 'search_docs', arguments: { query: 'download invoices' } });
    expect((search.structuredContent as { results: { url: string }[] }).results[0]!.url).toBe(`${BASE}products/billing#invoices`);
    const page = await client.callTool({ name: 'read_page', arguments: { url: `${BASE}products/cli/install` } });
    expect(textOf(page)).toMatch(/^# Installing the CLI\n[\s\S]*\n## Updating\n/);
    const asked = await client.callTool({ name: 'ask', arguments: { question: 'How do I install the CLI?' } });
    expect(asked.isError).toBeFalsy();
    expect((asked.structuredContent as { answer: string }).answer).toContain('npm install --global acme-cli');
    const bad = await client.callTool({ name: 'search_docs', arguments: { query: '' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('"query" must not be empty');
    // Every line on stdout was a protocol message the client could read.
    expect(errors).toEqual([]);
    expect(stderr()).toContain('support-chat-kit mcp: serving the docs of acme over stdio');
    // Counted in the organization's insights as asked through MCP.
    const report = JSON.parse(runCli(['insights', '--org', 'acme', '--json'], dataDir, env));
    expect(report.totals).toMatchObject({ questions: 1, mcp: 1 });
  }, 120_000);

  it('shows one organization’s docs only', async () => {
    const { client } = await connect('globex');
    const page = await client.callTool({ name: 'read_page', arguments: { url: `${BASE}products/billing` } });
    expect(page.isError).toBe(true);
    const search = await client.callTool({ name: 'search_docs', arguments: { query: 'install acme-cli billing', limit: 20 } });
    for (const r of (search.structuredContent as { results: { url: string }[] }).results) expect(r.url).toMatch(/^https:\/\/docs\.globex\.example\//);
  }, 120_000);

  it('writes nothing but JSON-RPC messages to stdout: its log lines go to stderr', async () => {
    const child = spawn(process.execPath, args('acme'), { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = () => stdout.split('\n').filter(Boolean);
    const until = async (n: number) => {
      for (let i = 0; i < 600 && lines().length < n; i++) await new Promise((r) => setTimeout(r, 50));
    };
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    await until(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_docs', arguments: { query: 'refunds' } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_page', arguments: { url: 'nowhere' } } });
    // The worker that answers logs a line when it is done.
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'ask', arguments: { question: 'How do I get a refund?' } } });
    await until(4);
    child.stdin.end();
    // 'close', not 'exit': the process may have exited with its last stderr lines still in the pipe.
    await new Promise((r) => child.once('close', r));
    expect(lines().length).toBe(4);
    for (const line of lines()) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(lines().map((l) => JSON.parse(l).id).sort()).toEqual([1, 2, 3, 4]);
    expect(JSON.parse(lines().find((l) => JSON.parse(l).id === 4)!).result.isError).toBeFalsy();
    expect(stderr).toContain('"msg":"answer completed"');
  }, 120_000);

  it('logs a line over 10 MB to stderr and exits non-zero', async () => {
    const child = spawn(process.execPath, args('acme'), { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // 'close', not 'exit': its stderr is read to the end first.
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    for (let i = 0; i < 60 && !stderr.includes('serving the docs'); i++) await new Promise((r) => setTimeout(r, 100));
    const chunk = 'x'.repeat(1024 * 1024);
    // Eleven megabytes without a newline, written as the pipe drains; the process may stop reading midway.
    for (let i = 0; i < 11 && child.stdin.writable; i++) {
      if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r).once('error', r));
    }
    child.stdin.on('error', () => undefined);
    const code = await exited;
    expect(code).not.toBe(0);
    expect(stderr).toContain('support-chat-kit mcp: ReadBuffer exceeded maximum size of 10485760 bytes');
  }, 120_000);

  it('refuses an organization with no docs, naming those that have some', () => {
    const result = spawnSync(process.execPath, args('acm'), { cwd: root, env, input: '', encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('support-chat-kit mcp: unknown organization "acm": no docs in this database (organizations with docs here: acme, globex)');
    expect(result.stdout).toBe('');
  }, 120_000);
});
