/**
 * @module A docs generator's site as a user sets it up, for the plugins' end-to-end tests: the
 * package built into a folder of its own (its plugins compiled, the widget bundled), a fresh site
 * copied from a fixture whose `node_modules` holds the project's dependencies and that package,
 * `support-chat-kit init` and `serve` run in the site's folder, and the generator's own commands.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { buildWidget } from '../../helpers/build-widget.js';
import { repoRoot } from './stack.js';

const CLI = resolve(repoRoot, 'src/cli/index.ts');

/** The environment without any support-chat setting of the machine's, so `.env` alone decides. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SUPPORT_CHAT') && !name.startsWith('SUPPORT_PROXY')));
  return { ...env, ...extra };
}

/**
 * The package as installed: package.json, the plugin `entries` compiled (with what they import) to
 * dist/node as `npm run build:node` does, and the widget's classic script with the modules it loads.
 */
export async function buildPackage(dir: string, entries: string[]): Promise<string> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), readFileSync(join(repoRoot, 'package.json')));
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const tsconfig = join(dir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(repoRoot, 'tsconfig.build.json'),
      compilerOptions: { rootDir: join(repoRoot, 'src'), outDir: join(dir, 'dist/node'), declaration: true, declarationDir: join(dir, 'dist/types'), sourceMap: false },
      include: [],
      files: entries.map((entry) => join(repoRoot, 'src', entry)),
    }),
  );
  const tsc = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
  // The files a site's bundler compiles ship as they are (scripts/copy-dashboard.mjs).
  for (const entry of entries) {
    const client = join(repoRoot, 'src', dirname(entry), 'client');
    if (existsSync(client)) cpSync(client, join(dir, 'dist/node', dirname(entry), 'client'), { recursive: true });
  }
  await buildWidget(join(dir, 'dist'), ['iife']);
  return dir;
}

/**
 * A fresh site from `fixture` in `dir`; its node_modules: every dependency of the project's (linked,
 * or copied for the packages in `copied`: Astro compiles its components wrong when their real path
 * is outside the site), and the package.
 */
export function createSite(fixture: string, dir: string, pkg: string, copied: string[] = []): string {
  cpSync(fixture, dir, { recursive: true });
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(repoRoot, 'node_modules'))) {
    if (name === 'support-chat-kit') continue;
    if (copied.includes(name)) cpSync(join(repoRoot, 'node_modules', name), join(modules, name), { recursive: true });
    else symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name), 'dir');
  }
  symlinkSync(pkg, join(modules, 'support-chat-kit'), 'dir');
  return dir;
}

/** The config file with the plugin's line added, and `lines` (as docs/docs-sites.md prints them) found in that page. */
export function docsLines(lines: string[]): void {
  const page = readFileSync(join(repoRoot, 'docs/docs-sites.md'), 'utf8');
  for (const line of lines) if (!page.includes(line)) throw new Error(`docs/docs-sites.md does not print: ${line}`);
}

/** A config file's text with `line` (the plugin's import) added after its line that starts with `after`. */
export function importAfter(config: string, after: string, line: string): string {
  const lines = config.split('\n');
  const at = lines.findIndex((l) => l.startsWith(after));
  if (at === -1) throw new Error(`the config has no line starting with ${after}`);
  lines.splice(at + 1, 0, line);
  return lines.join('\n');
}

/** Runs `support-chat-kit ARGS` in `cwd` as a user would; its stdout. */
export function runCliIn(cwd: string, args: string[]): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd, encoding: 'utf8', env: cleanEnv() });
  if (result.status !== 0) throw new Error(`support-chat-kit ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

export interface Running {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts a command in its own process group and waits until `ready` matches its output as read
 * (colour codes taken out: a dev server colours "Local:" when FORCE_COLOR is set, as on CI). A
 * command that does not start is stopped before the error is thrown, so nothing keeps writing into
 * the folder the test removes.
 */
export async function startProcess(command: string, args: string[], cwd: string, ready: RegExp, env: NodeJS.ProcessEnv = cleanEnv(), timeoutMs = 240_000): Promise<Running> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      process.kill(-child.pid!, 'SIGTERM');
    });
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => {
      const error = new Error(`${command} ${args.join(' ')} did not start:\n${output}`);
      child.removeAllListeners('exit');
      void stop().then(() => fail(error));
    }, timeoutMs);
    const check = () => {
      if (ready.test(stripVTControlCharacters(output))) {
        clearTimeout(timer);
        done();
      }
    };
    child.stdout!.on('data', (chunk: Buffer) => ((output += chunk.toString()), check()));
    child.stderr!.on('data', (chunk: Buffer) => ((output += chunk.toString()), check()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
  return { child, output: () => output, stop };
}

/** `support-chat-kit serve` in the site's folder, on the port its `.env` names, with `args`; started once `ready` shows. */
export function startServeIn(cwd: string, port: number, args: string[] = [], ready = /listening on http/): Promise<Running> {
  return startProcess(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', String(port), ...args], cwd, ready);
}

/** Runs a command to its end in `cwd`; throws with its output when it fails. */
export async function runToEnd(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<string> {
  let output = '';
  const code = await new Promise<number | null>((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', done);
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${code}):\n${output}`);
  return output;
}
