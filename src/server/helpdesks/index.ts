/**
 * @module The helpdesk registry: the one place that lists the helpdesks. Escalation, follow-ups,
 * the webhook route (`POST /v0/webhooks/{source}/{org}`), settings and `tickets sync --source`
 * look a helpdesk up here by name; adding one means adding its folder and a line below.
 *
 * @example
 * const desk = helpdesks.get('linear'); // undefined for a name nobody registered
 * desk?.sync?.(settings, { fetch });
 */
import { linear } from './linear/index.js';
import { plain } from './plain/index.js';
import { pylon } from './pylon/index.js';
import { isHelpdeskName } from '../../protocol/index.js';
import type { Helpdesk } from './types.js';
import { webhook } from './webhook/index.js';

export type * from './types.js';
export { IntegrationError } from './types.js';
export { requireSettings, missingSettingHint, SETTING_FLAGS, SECRET_SETTINGS } from './settings.js';

/** Helpdesks by name, in registration order. */
export class HelpdeskRegistry {
  readonly #byName = new Map<string, Helpdesk>();

  constructor(list: readonly Helpdesk[] = []) {
    for (const helpdesk of list) this.register(helpdesk);
  }

  /** Adds a helpdesk; answers a function that removes it again. Throws on a name taken. */
  register(helpdesk: Helpdesk): () => void {
    if (!isHelpdeskName(helpdesk.name)) throw new Error(`helpdesk name must be lowercase letters, digits and dashes, got "${helpdesk.name}"`);
    if (this.#byName.has(helpdesk.name)) throw new Error(`helpdesk ${helpdesk.name} is already registered`);
    this.#byName.set(helpdesk.name, helpdesk);
    return () => {
      if (this.#byName.get(helpdesk.name) === helpdesk) this.#byName.delete(helpdesk.name);
    };
  }

  /** The helpdesk of that name, or undefined. */
  get(name: string): Helpdesk | undefined {
    return this.#byName.get(name);
  }

  all(): Helpdesk[] {
    return [...this.#byName.values()];
  }

  /** Names of the helpdesks `tickets sync` can read from. */
  syncable(): string[] {
    return this.all().filter((h) => h.sync).map((h) => h.name);
  }
}

/** The server's helpdesks. */
export const helpdesks = new HelpdeskRegistry([plain, pylon, linear, webhook]);
