/**
 * @module The server the crawl benchmark syncs hostile pages in: the real v0 server in its own
 * process (a data directory, the local engine without embeddings), whose docs-site sync runs the
 * path of `serve --kb-sync-every` (`SiteSync` over the knowledge base's `sync`). It reports its
 * URL and a token on fd 3, then syncs each site URL written to its stdin, answering on fd 3 when done.
 */
import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { startServer } from '../../src/server/index.js';
import { SiteSync } from '../../src/server/knowledge/sources/site-sync.js';

const report = (info: Record<string, unknown>): void => void writeSync(3, `${JSON.stringify(info)}\n`);

const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-crawl-bench-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const { url, server } = await startServer({ dataDir, port: 0, engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: null }) });
const knowledge = server.engine.knowledge!;
const { token } = await server.tokens.create({ orgId: 'bench', name: 'bench', scopes: ['chat:read', 'chat:write'] });
report({ url, token });

let sites = 0;
for await (const site of createInterface({ input: process.stdin })) {
  // Registered as a source of an organization of its own, then synced as `serve --kb-sync-every` syncs it.
  const orgId = `site-${sites++}`;
  await knowledge.ingest(orgId, [site], { maxPages: 50 }).catch(() => undefined);
  const sync = new SiteSync({ sql: server.sql, everyMs: 60_000, ingestSource: (org, source) => knowledge.sync(org, { only: source, kinds: ['url'] }) });
  await server.sql.run('UPDATE kb_sources SET sync_after = 0 WHERE org_id = ?', [orgId]);
  await sync.runOnce();
  const [source] = await knowledge.sources(orgId);
  report({ done: site, status: source?.status, failures: source?.failures.map((f) => f.reason) ?? [] });
}
process.exit(0);
