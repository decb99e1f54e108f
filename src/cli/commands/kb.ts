/** @module `support-chat-kit kb ingest|stats`: the organization's knowledge base of docs and code. */
import { createAnswerEngine, IngestError } from '../../server/answers/index.js';
import { existsSync } from 'node:fs';
import { CliError, dispatch, ORG_OPTION, parse, PROGRAM } from '../args.js';
import { openDatabase } from '../database.js';

function progressBar(done: number, total: number, file: string): void {
  const width = 28;
  const filled = total ? Math.round((done / total) * width) : width;
  const name = file.length > 40 ? `…${file.slice(-39)}` : file;
  process.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${name}`.padEnd(100));
}

export async function run(argv: string[]): Promise<number> {
  return dispatch(argv, { ingest, stats });
}

async function ingest(argv: string[]): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      org: ORG_OPTION,
      'base-url': { type: 'string', value: 'URL', env: 'SUPPORT_CHAT_BASE_URL', description: "where the files are published: a docs site, or a repository's blob URL (https://github.com/OWNER/REPO/blob/main/)" },
    },
    'PATH...',
  );
  const orgId = values.org!;
  if (positionals.length === 0) throw new CliError('name at least one file or folder to ingest');
  // A folder a site does not have (./src on a docs-only site) is worth a warning, not a failed run.
  const present = positionals.filter((path) => existsSync(path));
  for (const path of positionals) if (!present.includes(path)) console.error(`${PROGRAM}: skipping ${path}: no such file or folder`);
  if (present.length === 0) throw new CliError(`none of ${positionals.join(', ')} exists; name the folder of your docs`);
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new CliError(`--base-url must be an http(s) URL, got "${baseUrl}"`);
  const sql = await openDatabase(values);
  const engine = createAnswerEngine({ sql, llm: null });
  const tty = process.stderr.isTTY;
  try {
    const report = await engine.ingest(orgId, present, { baseUrl, onProgress: tty ? progressBar : undefined });
    if (tty) process.stderr.write('\n');
    for (const skipped of report.skipped) console.error(`skipped ${skipped.path}: ${skipped.reason}`);
    console.log(
      `Ingested ${report.files} files for ${orgId}: ${report.added} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.removed} removed (${report.sections} sections written).`,
    );
    return 0;
  } catch (error) {
    if (error instanceof IngestError) throw new CliError(error.message);
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
    const s = await createAnswerEngine({ sql, llm: null }).stats(orgId);
    // Prose sections without an embedding rank by words alone until `kb ingest` runs again.
    console.log(`${orgId}: ${s.documents} documents, ${s.sections} sections${s.prose > 0 ? `, ${s.embedded} of ${s.prose} prose sections embedded` : ''}`);
    return 0;
  } finally {
    await sql.close();
  }
}
