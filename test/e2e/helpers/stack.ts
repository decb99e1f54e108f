/** @module Starts the whole product the way `npm start` does (scripts/start.mjs) on free ports, for end-to-end tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../../..');

export interface Stack {
  url: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Runs `node scripts/start.mjs` with `env` and waits until it prints that it is running. */
export async function startStack(env: Record<string, string> = {}, dataDir?: string): Promise<Stack> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'support-chat-e2e-'));
  const port = await freePort();
  const apiPort = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot, 'scripts/start.mjs')], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), API_PORT: String(apiPort), SUPPORT_CHAT_DATA: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 240_000);
    const check = setInterval(() => {
      if (output.includes('support-chat is running')) {
        clearInterval(check);
        clearTimeout(timer);
        resolveStart();
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://localhost:${port}`,
    dataDir: dir,
    output: () => output,
    stop: () =>
      new Promise((resolveStop) => {
        if (child.exitCode !== null) return resolveStop(child.exitCode);
        child.once('exit', (code) => {
          if (!dataDir) rmSync(dir, { recursive: true, force: true });
          resolveStop(code);
        });
        child.kill('SIGINT');
      }),
  };
}
