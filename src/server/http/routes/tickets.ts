/** @module Synced tickets: DELETE /v0/tickets/{source}/{external_id}, and our reads (GET list and one). */
import { badRequest, HttpError, notFound } from '../errors.js';
import { json } from '../exchange.js';
import type { Route } from '../router.js';

const SOURCE = /^[a-z0-9_-]{1,64}$/;

export const ticketRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/v0/tickets',
    scope: 'tickets:read',
    handler: async (ctx) => {
      const source = ctx.query.get('source') ?? undefined;
      if (source !== undefined && !SOURCE.test(source)) throw badRequest('"source" must be a lowercase helpdesk name');
      const limitParam = ctx.query.get('limit');
      const limit = limitParam === null ? 50 : Number(limitParam);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw badRequest('"limit" must be an integer from 1 to 200');
      const cursor = ctx.query.get('cursor') ?? undefined;
      const page = await ctx.services.tickets.list(ctx.auth!.orgId, { source, limit, cursor });
      return json({ tickets: page.tickets, next_cursor: page.nextCursor });
    },
  },
  {
    method: 'GET',
    pattern: '/v0/tickets/:source/:external_id',
    scope: 'tickets:read',
    handler: async (ctx) => {
      const ticket = await ctx.services.tickets.get(ctx.auth!.orgId, ctx.params.source!, ctx.params.external_id!);
      if (!ticket) throw notFound();
      return json(ticket);
    },
  },
  {
    method: 'DELETE',
    pattern: '/v0/tickets/:source/:external_id',
    scope: 'tickets:delete',
    bucket: 'deleteTicket',
    handler: async (ctx) => {
      let removed: boolean;
      try {
        removed = await ctx.services.tickets.remove(ctx.auth!.orgId, ctx.params.source!, ctx.params.external_id!);
      } catch (error) {
        ctx.services.logger.warn({ msg: 'ticket deletion did not finish', error: error instanceof Error ? error.message : String(error) });
        throw new HttpError(500, 'internal_error', 'An internal error occurred', { retryable: true });
      }
      if (!removed) throw notFound();
      return { status: 204, headers: {}, body: null };
    },
  },
];
