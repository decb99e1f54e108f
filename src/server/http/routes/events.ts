/**
 * @module GET /v0/chat/{id}/events: the conversation's turn as `text/event-stream` (our addition;
 * see docs/server.md, "Streamed answers"). Same scope, limits and isolation as GET /v0/chat/{id}.
 */
import { isConversationId } from '../../../protocol/index.js';
import { badRequest, notFound, rateLimited } from '../errors.js';
import type { ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';
import { EVENT_STREAM_HEADERS, eventStream, parseLastEventId } from '../../streams/event-stream.js';
import { turnKey } from '../../streams/index.js';

async function events(ctx: RouteContext): Promise<ApiResponse> {
  const id = ctx.params.id!;
  if (!isConversationId(id)) throw notFound();
  const orgId = ctx.auth!.orgId;
  const { conversations, lifecycle, streams, closing } = ctx.services;
  const record = await conversations.get(orgId, id);
  if (!record) throw notFound();
  const given = ctx.request.header('last-event-id') ?? ctx.query.get('last_event_id');
  const position = parseLastEventId(given);
  if (position === null) throw badRequest('Last-Event-ID must be an event ID this stream sent, as `<turn>-<event>` (e.g. `2-14`)');
  const turn = (await conversations.messages(id)).filter((m) => m.role === 'user').length;
  const after = position?.turn === turn ? position.seq : 0;
  const key = turnKey(id, turn);
  // A client that already has the settled turn's last event is told to stop (EventSource stops reconnecting on 204).
  if (record.status !== 'processing' && after > 0) {
    const [event] = await streams.log.read(key, after - 1, 1).catch(() => []);
    if (event?.type === 'end') return { status: 204, headers: {}, body: null };
  }
  if (!streams.acquire(orgId)) throw rateLimited();
  const signal = AbortSignal.any([closing, ctx.request.signal]);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    streams.release(orgId);
  };
  // Counted until the stream ends or its client leaves, whichever comes first.
  signal.addEventListener('abort', release, { once: true });
  async function* counted() {
    try {
      yield* eventStream({ streams, conversations, lifecycle, orgId, conversation: record!, turn, after, signal });
    } finally {
      release();
      signal.removeEventListener('abort', release);
    }
  }
  return { status: 200, headers: { ...EVENT_STREAM_HEADERS }, body: null, stream: counted() };
}

export const eventRoutes: Route[] = [{ method: 'GET', pattern: '/v0/chat/:id/events', scope: 'chat:read', handler: events }];
