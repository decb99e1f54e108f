/** @module Synced helpdesk tickets in the knowledge base: indexed for the organization's agents, forgotten when deleted. */
import { setImmediate } from 'node:timers/promises';
import type { Section } from '../ingest/sections.js';
import type { SectionEmbeddings } from './embeddings.js';
import { passageFor, type SectionStore } from './sections.js';

/** A synced ticket, as the knowledge base indexes it. */
export interface TicketDocument {
  source: string;
  externalId: string;
  title: string;
  body: string | null;
  url: string | null;
}

/**
 * How much of a ticket is indexed. Ticket text is written by the helpdesk's customers, at any
 * length: every rebuild of the index reads it, and so does every answer that weighs it.
 */
const TICKET_INDEXED_CHARS = { title: 300, body: 20_000 };

/** The start of a text, `max` characters at most, not cutting a character outside the Basic Multilingual Plane in half. */
function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max);
}

/** Synced tickets' entries in the knowledge base, under `ticket:<source>:<external_id>`. */
export class TicketIndex {
  readonly #store: SectionStore;
  readonly #embeddings: SectionEmbeddings;

  constructor(store: SectionStore, embeddings: SectionEmbeddings) {
    this.#store = store;
    this.#embeddings = embeddings;
  }

  /** Indexes a ticket's title and the start of its body (see `TICKET_INDEXED_CHARS`; the ticket store keeps the whole text). */
  async index(orgId: string, ticket: TicketDocument): Promise<void> {
    const docKey = `ticket:${ticket.source}:${ticket.externalId}`;
    const title = clipText(ticket.title, TICKET_INDEXED_CHARS.title);
    const body = clipText(ticket.body ?? '', TICKET_INDEXED_CHARS.body);
    // Each step in a turn of the event loop of its own: the delivery that brought the ticket read
    // its HTML in this one, and splitting 20,000 characters into sentences takes tens of
    // milliseconds (more the first time in a process), which no other request should wait behind.
    await setImmediate();
    const section: Section = { title, context: `${ticket.source} ticket`, url: ticket.url ?? '', body, code: '', lang: '', kind: 'ticket' };
    section.passage = passageFor(section);
    await setImmediate();
    const vectors = await this.#embeddings.sections([section], false, orgId);
    await this.#store.sql.transaction(async (tx) => {
      await this.#store.replace(tx, orgId, docKey, { root: `ticket:${ticket.source}`, relPath: ticket.externalId, hash: '', title }, [section], vectors);
      await this.#store.bump(orgId, tx);
    });
  }

  /** Removes everything derived from a ticket. */
  async forget(orgId: string, source: string, externalId: string): Promise<void> {
    await this.#store.sql.transaction(async (tx) => {
      if (await this.#store.remove(orgId, `ticket:${source}:${externalId}`, tx)) await this.#store.bump(orgId, tx);
    });
  }
}
