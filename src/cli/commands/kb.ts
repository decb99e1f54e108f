/** @module `support-chat-kit kb ingest|stats`: the organization's knowledge base of docs and code. */
import { createAnswerEngine, IngestError } from '../../server/answers/index.js';
import { CliError, parse, required } from '../args.js';
import { openDatabase } from '../database.js';

function progressBar(done: number, total: number, file: string): void {
  const width = 28;
  const filled = total ? Math.round((done / total) * width) : width;
  const name = file.length > 40 ? `…${file.slice(-39)}` : file;
  process.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${name}`.padEnd(100));
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'ingest') return ingest(rest);
  if (action === 'stats') return stats(rest);
  throw new CliError(`unknown action "${action ?? ''}"; use ingest or stats`);
}

async function ingest(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { org: { type: 'string' }, 'base-url': { type: 'string' } });
  const orgId = required(values.org, 'org');
  if (positionals.length === 0) throw new CliError('name at least one file or folder to ingest');
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new CliError(`--base-url must be an http(s) URL, got "${baseUrl}"`);
  const sql = await openDatabase(values);
  const engine = createAnswerEngine({ sql, llm: null });
  const tty = process.stderr.isTTY;
  try {
    const report = await engine.ingest(orgId, positionals, { baseUrl, onProgress: tty ? progressBar : undefined });
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
  const { values } = parse(argv, { org: { type: 'string' } }, false);
  const orgId = required(values.org, 'org');
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
