/** @module `support-chat-kit kb ingest|sources|sync|remove|stats`: the organization's knowledge base of docs (folders, files and docs sites) and code. */
import { createAnswerEngine, IngestError, type IngestReport } from '../../server/answers/index.js';
import { existsSync } from 'node:fs';
import { CliError, dispatch, ORG_OPTION, parse, PROGRAM } from '../args.js';
import { openDatabase } from '../database.js';
import { EmbeddingPool, resolvePoolSize, type EmbeddingStatus } from '../../server/knowledge/index.js';
import { IngestProgress } from './kb-progress.js';

/** A crawl's progress on one terminal line: pages found, fetched, skipped and failed. */
function crawlProgress(p: { site: string; found: number; fetched: number; skipped: number; failed: number; url: string }): void {
  const width = 20;
  const filled = p.found ? Math.min(width, Math.round(((p.fetched + p.skipped + p.failed) / p.found) * width)) : 0;
  const name = p.url.length > 36 ? `…${p.url.slice(-35)}` : p.url;
  process.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] found ${p.found} · fetched ${p.fetched} · skipped ${p.skipped} · failed ${p.failed} ${name}`.padEnd(110));
}

export async function run(argv: string[]): Promise<number> {
  return dispatch(argv, { ingest, sources, sync, remove, stats });
}

const isUrl = (input: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(input);

/** The summary line of an ingest or sync. */
function summary(orgId: string, report: IngestReport, what: string): string {
  const read = [report.files ? `${report.files} files` : '', report.pages ? `${report.pages} pages (${report.requests} requests)` : ''].filter(Boolean).join(' and ') || 'nothing';
  const line = `${what} ${read} for ${orgId}: ${report.added} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.removed} removed (${report.sections} sections written)${report.failed.length ? `; ${report.failed.length} failed` : ''}.`;
  // After an upgrade, the first ingest or sync writes every document again: the reason it "updated" them.
  return report.reparsed ? `${line}\nRe-parsed ${report.reparsed} ${report.reparsed === 1 ? 'section' : 'sections'} of an older knowledge base into passages (blocks and sentences).` : line;
}

function printProblems(report: IngestReport): void {
  for (const skipped of report.skipped) console.error(`skipped ${skipped.path}: ${skipped.reason}`);
  for (const failed of report.failed) console.error(`failed ${failed.url}: ${failed.reason}`);
}

const positiveInt = (value: string | undefined, flag: string): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,6}$/.test(value)) throw new CliError(`--${flag} must be a whole number of at least 1, got "${value}"`);
  return Number(value);
};

async function ingest(argv: string[]): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      org: ORG_OPTION,
      'base-url': { type: 'string', value: 'URL', env: 'SUPPORT_CHAT_BASE_URL', description: "where the files are published: a docs site, or a repository's blob URL (https://github.com/OWNER/REPO/blob/main/)" },
      include: { type: 'string', multiple: true, value: 'PATTERN', description: 'crawl only URLs matching this pattern (repeatable)' },
      exclude: { type: 'string', multiple: true, value: 'PATTERN', description: 'never crawl URLs matching this pattern (repeatable)' },
      'max-pages': { type: 'string', value: 'N', fallback: '1000', description: 'pages read per docs site at most' },
      'content-selector': { type: 'string', value: 'CSS', description: "the element holding a page's main content" },
      'exclude-selector': { type: 'string', multiple: true, value: 'CSS', description: 'elements never read (repeatable)' },
      'embed-code': { type: 'boolean', description: 'embed code pieces now (slow: tens of ms each) rather than leave them to the server, which embeds them in the background' },
    },
    'PATH|URL...',
  );
  const orgId = values.org!;
  if (positionals.length === 0) throw new CliError('name at least one file, folder or docs site URL to ingest');
  // A folder a site does not have (./src on a docs-only site) is worth a warning, not a failed run.
  const present = positionals.filter((input) => isUrl(input) || existsSync(input));
  for (const input of positionals) if (!present.includes(input)) console.error(`${PROGRAM}: skipping ${input}: no such file or folder`);
  if (present.length === 0) throw new CliError(`none of ${positionals.join(', ')} exists; name the folder of your docs or its site's URL`);
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new CliError(`--base-url must be an http(s) URL, got "${baseUrl}"`);
  for (const input of positionals) {
    if (isUrl(input) && !/^https?:\/\//i.test(input)) throw new CliError(`"${input}" is not an http(s) URL`);
  }
  const maxPages = positiveInt(values['max-pages'] as string | undefined, 'max-pages');
  const sql = await openDatabase(values);
  const engine = createAnswerEngine({ sql, llm: null });
  const tty = process.stderr.isTTY;
  const progress = new IngestProgress();
  try {
    const report = await engine.ingest(orgId, present, {
      baseUrl,
      include: values.include as string[] | undefined,
      exclude: values.exclude as string[] | undefined,
      maxPages,
      contentSelector: values['content-selector'] as string | undefined,
      excludeSelectors: values['exclude-selector'] as string[] | undefined,
      onProgress: progress.update,
      onCrawlProgress: tty ? crawlProgress : undefined,
      embedCode: values['embed-code'] === true,
    });
    progress.end();
    printProblems(report);
    console.log(summary(orgId, report, 'Ingested'));
    const waiting = (await engine.pending()).find((p) => p.orgId === orgId)?.sections ?? 0;
    // Answers work at once by words; the server adds the meaning of these sections as it embeds them.
    if (waiting > 0) console.log(`${waiting} sections (code pieces) will be embedded in the background by the server (${PROGRAM} serve); --embed-code embeds them now.`);
    return 0;
  } catch (error) {
    progress.end();
    if (error instanceof IngestError) throw new CliError(error.message, { usage: false });
    throw error;
  } finally {
    await sql.close();
  }
}

async function sources(argv: string[]): Promise<number> {
  const { values } = parse(argv, { org: ORG_OPTION }, false);
  const orgId = values.org!;
  const sql = await openDatabase(values);
  try {
    const list = await createAnswerEngine({ sql, llm: null, embedder: null }).sources(orgId);
    if (list.length === 0) console.log(`${orgId} has no sources yet: add one with ${PROGRAM} kb ingest PATH|URL --org ${orgId}`);
    for (const s of list) {
      const when = s.syncedAt ? `synced ${s.syncedAt}` : 'never synced';
      console.log(`${s.source} (${s.kind === 'url' ? 'site' : 'path'}): ${when}, ${s.status}, ${s.pages} pages, ${s.sections} sections${s.failures.length ? `, ${s.failures.length} failures` : ''}`);
      for (const f of s.failures) console.log(`  failed ${f.url}: ${f.reason}`);
      if (s.status === 'kept') console.log(`  ${PROGRAM} kb sync --accept --org ${orgId} replaces them with what the site has now`);
    }
    return 0;
  } finally {
    await sql.close();
  }
}

async function sync(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      org: ORG_OPTION,
      accept: { type: 'boolean', description: "replace a docs site's pages even where the sync guard would keep them (the site really shrank or changed; see kb sources)" },
    },
    false,
  );
  const orgId = values.org!;
  const sql = await openDatabase(values);
  const tty = process.stderr.isTTY;
  const progress = new IngestProgress();
  try {
    const report = await createAnswerEngine({ sql, llm: null }).sync(orgId, { accept: values.accept === true, onProgress: progress.update, onCrawlProgress: tty ? crawlProgress : undefined });
    progress.end();
    if (report.sources === 0) throw new CliError(`${orgId} has no sources to sync: add one with ${PROGRAM} kb ingest PATH|URL --org ${orgId}`, { usage: false });
    printProblems(report);
    console.log(summary(orgId, report, `Synced ${report.sources} sources:`));
    return 0;
  } finally {
    await sql.close();
  }
}

async function remove(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { org: ORG_OPTION }, 'SOURCE');
  const orgId = values.org!;
  if (positionals.length !== 1) throw new CliError(`name one source to remove, as ${PROGRAM} kb sources lists it`);
  const sql = await openDatabase(values);
  try {
    const removed = await createAnswerEngine({ sql, llm: null, embedder: null }).removeSource(orgId, positionals[0]!);
    console.log(`Removed ${removed.source} and its ${removed.pages} ${removed.pages === 1 ? 'page' : 'pages'} from ${orgId}.`);
    return 0;
  } catch (error) {
    if (error instanceof IngestError) throw new CliError(error.message, { usage: false });
    throw error;
  } finally {
    await sql.close();
  }
}

async function stats(argv: string[]): Promise<number> {
  const { values } = parse(argv, { org: ORG_OPTION }, false);
  const orgId = values.org!;
  const sql = await openDatabase(values);
  try {
    // The default embedder names which embeddings count (its threads start only when something is embedded).
    const s = await createAnswerEngine({ sql, llm: null }).stats(orgId);
    // Prose sections without an embedding rank by words alone until `kb ingest` runs again.
    console.log(`${orgId}: ${s.documents} documents, ${s.sections} sections${s.prose > 0 ? `, ${s.embedded} of ${s.prose} prose sections embedded` : ''}`);
    // The model is started on one thread, as a server starts each of its own: one that cannot start is said, with why.
    let status: EmbeddingStatus & { error?: string };
    let size = 0;
    const pool = new EmbeddingPool({ size: 1 });
    try {
      size = resolvePoolSize(undefined);
      status = await pool.warm();
    } catch (error) {
      status = { state: 'down', threads: 0, size: 0, error: error instanceof Error ? error.message : String(error) };
    } finally {
      await pool.close();
    }
    if (status.state === 'ready') console.log(`sentence embeddings: ready (a server runs ${size} thread${size === 1 ? '' : 's'})`);
    else console.log(`sentence embeddings: unavailable (${status.error ?? status.state}); search and answers rank by words alone`);
    return 0;
  } finally {
    await sql.close();
  }
}
