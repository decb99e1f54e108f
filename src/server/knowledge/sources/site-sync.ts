/** @module `serve --kb-sync-every`: every organization's docs sites crawled again in the background, each by one process at a time. */
import type { Sql } from '../../store/sql.js';
import type { IngestReport } from './report.js';
import { claimSiteSync, scheduleSiteSync, siteSources } from './source-registry.js';

/** How long a process holds a site while it syncs it: another takes it over after this if the first died. */
export const SYNC_HOLD_MS = 60 * 60 * 1000;
/** How often the sources are looked at for one that is due (at most; sooner when `everyMs` is shorter). */
const CHECK_MS = 60 * 1000;

export interface SiteSyncOptions {
  sql: Sql;
  everyMs: number;
  /** Ingests one source again with its remembered options (the engine's `ingest`). */
  ingestSource(orgId: string, source: string): Promise<IngestReport>;
  /** One line per sync: the site, what changed, and failures. */
  log?(line: string): void;
}

/** Syncs due docs sites now, then every minute (or `everyMs`, when shorter), until `stop()`. */
export class SiteSync {
  readonly #options: SiteSyncOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: SiteSyncOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.runOnce().then(
        () => this.#schedule(Math.min(CHECK_MS, this.#options.everyMs)),
        () => this.#schedule(Math.min(CHECK_MS, this.#options.everyMs)),
      );
    }, delay);
    this.#timer.unref();
  }

  /** Syncs every docs site that is due and that no other process holds; resolves with how many this process synced. */
  async runOnce(): Promise<number> {
    const { sql, everyMs } = this.#options;
    let synced = 0;
    for (const { orgId, source } of await siteSources(sql)) {
      if (this.#stopped) break;
      if (!(await claimSiteSync(sql, orgId, source, SYNC_HOLD_MS))) continue;
      try {
        const report = await this.#options.ingestSource(orgId, source);
        this.#options.log?.(`kb sync ${orgId} ${source}: ${report.pages} pages, ${report.added} added, ${report.updated} updated, ${report.removed} removed${report.failed.length ? `, ${report.failed.length} failed` : ''}`);
      } catch (error) {
        // Recorded on the source (`kb sources`); the next sync is still scheduled.
        this.#options.log?.(`kb sync ${orgId} ${source} failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await scheduleSiteSync(sql, orgId, source, everyMs);
        synced++;
      }
    }
    return synced;
  }

  /** Stops syncing; resolves once a sync under way has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
