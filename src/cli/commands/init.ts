/**
 * @module `support-chat-kit init`: a site's first setup in one command, asking nothing: the data
 * directory, a token, `./docs` ingested (a Docusaurus, VitePress or Starlight site's pages, at their routes), a `server.mjs` (page, widget, proxy, escalation webhook)
 * and a `.env` with every setting. Idempotent: it keeps what is there and refuses to change a file
 * or setting that differs unless `--force`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { createAnswerEngine, IngestError } from '../../server/answers/index.js';
import { TokenService } from '../../server/store/tokens.js';
import { CliError, dataDir, parse, PROGRAM } from '../args.js';
import { openDatabase } from '../database.js';
import { detectDocsSite } from '../docs-site.js';

/** What a site's widget token may do: ask, read answers, escalate. */
const SCOPES = ['chat:read', 'chat:write', 'chat:escalate'];
const SERVER_FILE = 'server.mjs';
const ENV_FILE = '.env';

/** The organization a folder's name suggests: lowercase letters, digits and dashes. */
export function orgFromFolder(folder: string): string {
  const slug = basename(folder)
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return slug || 'site';
}

/** The `server.mjs` init writes, as shipped next to the compiled CLI. */
export function serverTemplate(): string {
  return readFileSync(new URL('../templates/server.mjs', import.meta.url), 'utf8');
}

const secret = () => randomBytes(32).toString('base64url');

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      org: { type: 'string', value: 'ORG', env: 'SUPPORT_CHAT_ORG', fallback: "this folder's name", description: 'the organization' },
      docs: { type: 'string', value: 'DIR', fallback: "a Docusaurus, VitePress or Starlight site's pages, else ./docs when it exists", description: 'the docs to ingest' },
      'base-url': { type: 'string', value: 'URL', env: 'SUPPORT_CHAT_BASE_URL', description: 'where the docs are published, for source links (a docs site, or https://github.com/OWNER/REPO/blob/main/)' },
      port: { type: 'string', fallback: '3000', description: "server.mjs's port" },
      force: { type: 'boolean', description: 'replace a server.mjs or .env setting that differs' },
    },
    false,
  );
  const cwd = process.cwd();
  const existing = existsSync(ENV_FILE) ? parseEnv(readFileSync(ENV_FILE, 'utf8')) : {};
  const port = values.port ?? existing.PORT ?? '3000';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new CliError(`--port must be a port number, got "${port}"`);
  const data = values.data ?? existing.SUPPORT_CHAT_DATA ?? '.support-chat';
  const org = values.org ?? existing.SUPPORT_CHAT_ORG ?? orgFromFolder(cwd);
  const baseUrl = values['base-url'] ?? existing.SUPPORT_CHAT_BASE_URL;
  if (baseUrl !== undefined && !URL.canParse(baseUrl)) throw new CliError(`--base-url must be an http(s) URL, got "${baseUrl}"`);
  if (values.docs !== undefined && !existsSync(values.docs)) throw new CliError(`--docs ${values.docs}: no such folder`);
  // A Docusaurus, VitePress or Starlight site: its pages, at the routes it serves them (unless --docs names a folder).
  const site = values.docs === undefined ? detectDocsSite(cwd) : null;
  const docs = values.docs ?? site?.content ?? 'docs';

  // Every setting init owns: what .env has is kept, a different value needs --force.
  const wanted: Record<string, string | undefined> = {
    SUPPORT_CHAT_DATA: data,
    SUPPORT_CHAT_ORG: org,
    SUPPORT_CHAT_BASE_URL: baseUrl,
    SUPPORT_CHAT_API_URL: existing.SUPPORT_CHAT_API_URL ?? 'http://127.0.0.1:8787',
    PORT: port,
    SUPPORT_PROXY_SECRET: existing.SUPPORT_PROXY_SECRET ?? secret(),
    SUPPORT_CHAT_WEBHOOK_URL: existing.SUPPORT_CHAT_WEBHOOK_URL ?? `http://127.0.0.1:${port}/escalations`,
    SUPPORT_CHAT_WEBHOOK_SECRET: existing.SUPPORT_CHAT_WEBHOOK_SECRET ?? secret(),
    SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: existing.SUPPORT_CHAT_ALLOW_LOCAL_TARGETS ?? 'true',
    SUPPORT_CHAT_TOKEN: existing.SUPPORT_CHAT_TOKEN,
  };
  const conflicts = Object.entries(wanted).filter(([key, value]) => value !== undefined && existing[key] !== undefined && existing[key] !== value);
  const template = serverTemplate();
  const serverDiffers = existsSync(SERVER_FILE) && readFileSync(SERVER_FILE, 'utf8') !== template;
  if (!values.force && (conflicts.length > 0 || serverDiffers)) {
    const what = [...conflicts.map(([key]) => `${key} in ${ENV_FILE}`), ...(serverDiffers ? [`${SERVER_FILE}`] : [])];
    throw new CliError(`${what.join(', ')} already ${what.length > 1 ? 'exist' : 'exists'} and ${what.length > 1 ? 'differ' : 'differs'}; nothing was changed (${PROGRAM} init --force replaces ${what.length > 1 ? 'them' : 'it'})`, { usage: false });
  }

  // The data directory named in .env is the one every later command uses; the environment does not override it here.
  process.env.SUPPORT_CHAT_DATA = data;
  mkdirSync(dataDir(data), { recursive: true });
  const sql = await openDatabase({ data: values.database === undefined ? data : undefined, database: values.database });
  let ingested = '';
  let tokenNote = 'kept the token in .env';
  try {
    const tokens = new TokenService(sql);
    const current = wanted.SUPPORT_CHAT_TOKEN ? await tokens.verify(wanted.SUPPORT_CHAT_TOKEN) : null;
    if (!current || current.orgId !== org) {
      if (wanted.SUPPORT_CHAT_TOKEN && !values.force) {
        throw new CliError(`the SUPPORT_CHAT_TOKEN in ${ENV_FILE} is not a valid token of ${org} in ${data}; nothing was changed (${PROGRAM} init --force makes a new one)`, { usage: false });
      }
      const created = await tokens.create({ orgId: org, name: 'website', scopes: SCOPES, expiresAt: null });
      wanted.SUPPORT_CHAT_TOKEN = created.token;
      tokenNote = `created a token for ${org} (${created.record.prefix}…)`;
    }
    if (existsSync(docs) && statSync(docs).isDirectory()) {
      const engine = createAnswerEngine({ sql, llm: null });
      try {
        const report = await engine.ingest(org, [docs], { baseUrl, routes: site?.routes });
        const what = site ? `${report.files} pages of your ${site.name} site at the addresses it serves them (${site.routes.base}…)` : `${report.files} files`;
        ingested = `ingested ${what} from ${docs} (${report.added} added, ${report.updated} updated, ${report.unchanged} unchanged)`;
        if (site && site.unread.length > 0) console.error(`${PROGRAM} init: could not read ${site.unread.join(', ')} of ${site.config}; the ${site.name} defaults were assumed`);
      } catch (error) {
        if (error instanceof IngestError) throw new CliError(error.message, { usage: false });
        throw error;
      }
    }
  } finally {
    await sql.close();
  }

  writeFileSync(ENV_FILE, envFile(existing, wanted), { mode: 0o600 });
  if (!existsSync(SERVER_FILE) || serverDiffers) writeFileSync(SERVER_FILE, template);
  ignore(['.env', `${relative(cwd, resolve(data)).split('\\').join('/')}/`]);

  const lines = [
    `${PROGRAM} init: ${data}/ (${values.database ? 'PostgreSQL' : 'SQLite'}), ${tokenNote}, ${ENV_FILE} and ${SERVER_FILE}.`,
    ingested ? `Knowledge base: ${ingested}.` : `No ${docs}/ folder: put your docs there, then run ${PROGRAM} kb ingest ./${docs}`,
    '',
    'Next, in two terminals:',
    `  npx ${PROGRAM} serve`,
    '  node server.mjs',
    `then open http://localhost:${port}/ and ask the button in the corner a question.`,
  ];
  console.log(lines.join('\n'));
  return 0;
}

/** Lines written above a setting when init adds it: why it is there. */
const ENV_COMMENTS: Record<string, string> = {
  SUPPORT_CHAT_ALLOW_LOCAL_TARGETS:
    '# The webhook receiver above is server.mjs on this machine, and the server refuses escalation targets on\n' +
    '# loopback addresses unless this is true. Remove it once SUPPORT_CHAT_WEBHOOK_URL points at a public receiver.\n',
};

/** The `.env` to write: the file as it was, with the settings it lacked (or, with --force, replaced) after it. */
function envFile(existing: Record<string, string | undefined>, wanted: Record<string, string | undefined>): string {
  const before = existsSync(ENV_FILE) ? readFileSync(ENV_FILE, 'utf8') : '# support-chat-kit settings: read by `npx support-chat-kit …` and by server.mjs. Keep this file secret.\n';
  const replaced = new Set(Object.keys(wanted).filter((key) => existing[key] !== undefined && existing[key] !== wanted[key]));
  const kept = before
    .split(/\r?\n/)
    .filter((line) => !replaced.has(line.split('=')[0]!.trim()))
    .join('\n')
    .replace(/\n*$/, '\n');
  const added = Object.entries(wanted)
    .filter(([key, value]) => value !== undefined && (existing[key] === undefined || replaced.has(key)))
    .map(([key, value]) => `${ENV_COMMENTS[key] ?? ''}${key}=${value}\n`)
    .join('');
  return kept + added;
}

/** Adds the secrets and the data to .gitignore (made when missing), each line once. */
function ignore(entries: string[]): void {
  const path = join(process.cwd(), '.gitignore');
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const have = new Set(text.split(/\r?\n/).map((l) => l.trim()));
  const missing = entries.filter((e) => !have.has(e));
  if (missing.length) writeFileSync(path, `${text}${text && !text.endsWith('\n') ? '\n' : ''}${missing.join('\n')}\n`);
}
