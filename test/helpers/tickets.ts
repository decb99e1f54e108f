/** @module A synced ticket as a helpdesk sync would store it, for tests. */
import type { TicketInput } from '../../src/server/helpdesks/types.js';

/** A Plain ticket `externalId` with plausible fields; `overrides` replace any of them. */
export function ticket(externalId: string, overrides: Partial<TicketInput> = {}): TicketInput {
  return {
    source: 'plain',
    externalId,
    title: `Ticket ${externalId}`,
    status: 'open',
    url: `https://app.plain.com/workspace/w/thread/${externalId}`,
    customerEmail: 'c@example.com',
    customerName: 'Cee',
    body: 'The export button does nothing.',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-02T00:00:00.000Z',
    ...overrides,
  };
}
