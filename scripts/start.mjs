// `npm start`: the whole product on one machine with no account — builds what it needs, runs the
// v0 API server on SQLite, ingests this project's README, docs and source as the knowledge base,
// creates a development token, and serves the proxy and the demo pages.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Pages of docs/ that are not for the product's users: left out of the demo's knowledge base. */
const NOT_USER_DOCS = new Set(['benchmarks.md']);
// `npm start -- --port 4000 [--api-port 4001]` works in every shell; PORT and API_PORT in the environment too.
let flags;
try {
  flags = parseArgs({ args: process.argv.slice(2), options: { port: { type: 'string' }, 'api-port': { type: 'string' } }, strict: true }).values;
} catch (error) {
  console.error(`npm start: ${error.message.split('. ')[0]}; usage: npm start -- [--port 3000] [--api-port 3001]`);
  process.exit(2);
}
const dataDir = resolve(process.env.SUPPORT_CHAT_DATA ?? join(repoRoot, '.support-chat'));
const port = Number(flags.port ?? process.env.PORT ?? 3000);
const apiPort = Number(flags['api-port'] ?? process.env.API_PORT ?? (port === 0 ? 0 : port + 1));
const org = 'demo';
const cli = join(repoRoot, 'bin', 'support-chat.js');

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port (or PORT) must be a port number, got "${flags.port ?? process.env.PORT}"`);
  process.exit(2);
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function run(command, args, options = {}) {
  // npm is npm.cmd on Windows, which Node runs only through a shell.
  const windowsNpm = command === 'npm' && process.platform === 'win32';
  const result = spawnSync(windowsNpm ? 'npm.cmd' : command, args, { cwd: repoRoot, stdio: 'inherit', shell: windowsNpm, ...options });
  if (result.status !== 0) {
    console.error(`\n${[command, ...args].join(' ')} failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
  return result;
}

// 1. Build only what is stale, so a second start takes seconds.
// A build is current when every output is newer than every source (`npm run build` counts too).
const outputs = ['dist/node/cli/index.js', 'dist/node/proxy/index.js', 'dist/support-chat.js', 'dist/support-chat.iife.js'].map((p) => join(repoRoot, p));
const sourcesChanged = Math.max(newestMtime(join(repoRoot, 'src')), newestMtime(join(repoRoot, 'vite.config.ts')), newestMtime(join(repoRoot, 'package.json')));
const built = Math.min(...outputs.map((p) => (existsSync(p) ? statSync(p).mtimeMs : 0)));
if (built < sourcesChanged || process.env.SUPPORT_CHAT_REBUILD) {
  console.log('Building support-chat (server, proxy and widget)…');
  run('npm', ['run', '--silent', 'build']);
}

// 2. Development secrets, kept between runs.
mkdirSync(dataDir, { recursive: true });
const devFile = join(dataDir, 'dev.json');
const dev = existsSync(devFile) ? JSON.parse(readFileSync(devFile, 'utf8')) : {};
dev.proxySecret ??= randomBytes(32).toString('base64url');
dev.webhookSecret ??= randomBytes(32).toString('base64url');

const cliEnv = { ...process.env, SUPPORT_CHAT_DATA: dataDir };
function cliJson(args) {
  const result = spawnSync(process.execPath, [cli, ...args, '--data', dataDir], { cwd: repoRoot, env: cliEnv, encoding: 'utf8' });
  if (result.status !== 0) {
    console.error(result.stderr || result.stdout);
    process.exit(result.status ?? 1);
  }
  return JSON.parse(result.stdout);
}

// 3. The knowledge base: this project's own README, docs and source. Unchanged files are skipped.
const publicUrl = `http://localhost:${port}`;
// SUPPORT_CHAT_KB (paths separated by ':', ';' on Windows) replaces the default README, docs and src.
// The docs are the user docs: docs/benchmarks.md (measurements and their history) is for the
// project's developers, not an answer to a visitor, so the docs pages are ingested one by one
// without it, under the same addresses (`/source/docs/<page>`) as the folder would give them.
const ingested = [];
if (process.env.SUPPORT_CHAT_KB) {
  const kbPaths = process.env.SUPPORT_CHAT_KB.split(delimiter).filter(Boolean).map((p) => resolve(repoRoot, p)).filter((p) => existsSync(p));
  ingested.push({ paths: kbPaths, baseUrl: `${publicUrl}/source/` });
} else {
  const userDocs = readdirSync(join(repoRoot, 'docs'))
    .filter((name) => /\.mdx?$/.test(name) && !NOT_USER_DOCS.has(name))
    .map((name) => join(repoRoot, 'docs', name));
  ingested.push({ paths: ['README.md', 'src'].map((p) => resolve(repoRoot, p)), baseUrl: `${publicUrl}/source/` }, { paths: userDocs, baseUrl: `${publicUrl}/source/docs/` });
}
const sourceRoots = ingested.flatMap((part) => part.paths);
console.log(`Indexing the knowledge base (${sourceRoots.map((p) => relative(repoRoot, p)).join(', ')})…`);
for (const { paths, baseUrl } of ingested) run(process.execPath, [cli, 'kb', 'ingest', ...paths, '--org', org, '--base-url', baseUrl, '--data', dataDir], { env: cliEnv });

// 4. A development token for the proxy, reused while it is listed.
const tokens = cliJson(['token', 'list', '--org', org, '--json']);
const tokenList = Array.isArray(tokens) ? tokens : (tokens.tokens ?? []);
if (!dev.token || !tokenList.some((t) => dev.token.startsWith(t.prefix) && !t.revoked_at)) {
  const created = cliJson(['token', 'create', '--org', org, '--name', 'npm-start', '--scopes', 'chat:read,chat:write,chat:escalate', '--json']);
  dev.token = created.token;
}
// A read-only token for the insights dashboard, reused while it is listed.
if (!dev.insightsToken || !tokenList.some((t) => dev.insightsToken.startsWith(t.prefix) && !t.revoked_at)) {
  dev.insightsToken = cliJson(['token', 'create', '--org', org, '--name', 'npm-start-insights', '--scopes', 'insights:read', '--json']).token;
}
writeFileSync(devFile, JSON.stringify(dev, null, 2), { mode: 0o600 });

// 5. The API server, in its own process, as a deployment would run it.
const api = spawn(process.execPath, [cli, 'serve', '--port', String(apiPort), '--host', '127.0.0.1', '--data', dataDir], {
  cwd: repoRoot,
  env: {
    ...cliEnv,
    SUPPORT_CHAT_WEBHOOK_URL: `http://127.0.0.1:${port}/inbox/webhook`,
    // The demo's own inbox is on this machine: allow that one loopback target.
    SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true',
    SUPPORT_CHAT_WEBHOOK_SECRET: dev.webhookSecret,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const apiUrl = await new Promise((resolveUrl, reject) => {
  let buffer = '';
  api.stdout.on('data', (chunk) => {
    buffer += chunk;
    const match = buffer.match(/https?:\/\/[\d.]+:\d+/);
    if (match) resolveUrl(match[0]);
  });
  api.once('exit', (code) => reject(new Error(`API server exited (${code}) before listening`)));
});
api.stdout.resume();
if (process.env.SUPPORT_CHAT_VERBOSE) api.stdout.pipe(process.stdout);

// 6. The proxy and the demo pages.
const { createSupportProxy } = await import(pathToFileURL(join(repoRoot, 'dist/node/proxy/index.js')).href);
const { toNodeListener } = await import(pathToFileURL(join(repoRoot, 'dist/node/protocol/node-http.js')).href);
const { startDemoServer } = await import('./demo-server.mjs');
const proxy = createSupportProxy({
  apiBaseUrl: apiUrl,
  token: dev.token,
  secret: dev.proxySecret,
  basePath: '/api/support',
  escalation: { integration: 'webhook' },
});
const demo = await startDemoServer({
  port,
  host: process.env.HOST ?? '127.0.0.1',
  repoRoot,
  dataDir,
  proxy,
  webhookSecret: dev.webhookSecret,
  sourceRoots,
  toNodeListener,
  dashboardUrl: `${apiUrl}/dashboard/#token=${dev.insightsToken}`,
});

console.log(`
support-chat is running.

  Demo          ${publicUrl}/
  Script tag    ${publicUrl}/marketing.html
  Docs panel    ${publicUrl}/docs.html
  In-app help   ${publicUrl}/app.html
  Inbox         ${publicUrl}/inbox.html
  Insights      ${publicUrl}/dashboard  (the API server's dashboard, signed in with a development token)
  API server    ${apiUrl}  (data in ${dataDir})

Press Ctrl-C to stop.`);

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`\nStopping (${signal})…`);
  await demo.close();
  api.kill('SIGTERM');
  await new Promise((r) => (api.exitCode !== null ? r() : api.once('exit', r)));
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
api.on('exit', (code) => {
  if (!stopping) {
    console.error(`API server stopped unexpectedly (exit ${code})`);
    process.exit(1);
  }
});
