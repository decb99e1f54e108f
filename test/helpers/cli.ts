/** @module The `support-chat` command as a user runs it: one command to completion, or `serve` until it listens. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const cli = resolve(root, 'src/cli/index.ts');

/** Runs `support-chat ARGS --data DIR` and returns its stdout; throws with its stderr when it fails. */
export function runCli(args: string[], dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args, '--data', dataDir], { encoding: 'utf8', cwd: root, env });
  if (result.status !== 0) throw new Error(`support-chat ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** Starts `support-chat-kit serve --port 0 --data DIR` with its defaults; resolves with its URL once it listens. */
export async function startServe(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'serve', '--port', '0', '--data', dataDir], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { url, child };
}
