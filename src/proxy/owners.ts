/**
 * @module Which conversations are the visitor's: an anonymous visitor's are bound to the signed
 * cookie, a known visitor's to their id (any device where they are signed in reads them). The two
 * never mix, so a shared browser shows nothing of a visitor once they sign out. Upstream reads go
 * through the `upstream` each method is given (stages.ts, `upstreamFor`, which spends the quota),
 * taken only when one is made.
 */
import { badGateway, isConversationId, isVisitorId, notFound, type ConversationSummary, type ConversationVisitor } from '../protocol/index.js';
import { shortCache } from './cache.js';
import type { KnownVisitor } from './identity-options.js';
import type { Upstream } from './upstream.js';

/** What the owners read of one request (a ProxyContext is one). */
export interface OwnersRequest {
  readonly request: Request;
  /** The cookie's conversations. */
  readonly visitor: { readonly conversations: readonly string[] };
  /** The signed-in visitor, or null when anonymous. */
  readonly known: KnownVisitor | null;
}

/** The upstream, taken (and its quota spent) only when a read is made. */
export type UpstreamStep = () => Upstream;

/** Conversations whose owner this proxy remembers (without asking upstream again), and for how long. */
const OWNERS_MAX = 100_000;
const OWNERS_TTL_MS = 60 * 60 * 1000;

/**
 * The owners of conversations, for one proxy. They are learnt when conversations are started here,
 * or from the upstream's `visitor` (our server's extension), and kept in memory; a plain v0 server
 * names no owner, so there only the proxy that started a known visitor's conversation can vouch for it.
 */
export class ConversationOwners {
  readonly #owners = shortCache<string>({ ttlMs: OWNERS_TTL_MS, maxEntries: OWNERS_MAX, maxBytes: OWNERS_MAX });

  /** Records a conversation just started: a known visitor's belongs to their id; an anonymous one's goes into the cookie (by the caller). */
  started(ctx: OwnersRequest, id: string): void {
    if (ctx.known) this.#owners.set(id, ownerKey(ctx.known), 1);
  }

  /**
   * Whether conversation `id` is the request's visitor's. Anonymous: it is in their cookie. Known:
   * it was started by their id, as remembered here or as the upstream says (one upstream read the
   * first time this proxy sees it).
   */
  async owns(ctx: OwnersRequest, upstream: UpstreamStep, id: string): Promise<boolean> {
    if (!isConversationId(id)) return false;
    if (!ctx.known) return ctx.visitor.conversations.includes(id) && !this.#owners.get(id)?.startsWith('known:');
    const key = ownerKey(ctx.known);
    const owner = this.#owners.get(id);
    if (owner !== undefined) return owner === key;
    const result = await upstream().request('GET', `/v0/chat/${id}`, { signal: ctx.request.signal });
    if (result.status !== 200) return false;
    const visitor = parseVisitor(result.body);
    if (!visitor) return false;
    this.#owners.set(id, visitor.verified ? ownerKey(visitor) : `anon:${visitor.id}`, 1);
    return visitor.verified && visitor.id === ctx.known.id;
  }

  /** Throws 404 unless conversation `id` is the request's visitor's. */
  async ensureOwns(ctx: OwnersRequest, upstream: UpstreamStep, id: string): Promise<void> {
    if (!(await this.owns(ctx, upstream, id))) throw notFound();
  }

  /**
   * `GET {basePath}/chat`: the visitor's conversations, newest first. Known: their id's, from the
   * upstream's list; anonymous: the ones bound to their cookie. Behind a plain v0 server (no list),
   * an anonymous visitor's are read one by one and a known visitor has none listed.
   */
  async list(ctx: OwnersRequest, step: UpstreamStep, visitor: ConversationVisitor): Promise<{ conversations: ConversationSummary[] }> {
    const cookie = new Set(ctx.visitor.conversations);
    // One listing spends once, however many conversations a plain v0 server makes it read.
    const upstream = step();
    // Verified ids and anonymous ones are apart: a site's id never lists a cookie's conversations.
    const result = await upstream.request('GET', `/v0/chat?visitor_id=${encodeURIComponent(visitor.id)}&verified=${visitor.verified}&limit=50`, { signal: ctx.request.signal });
    if (result.status === 200) {
      const listed = parseList(result.body);
      if (listed) {
        const conversations = ctx.known ? listed : listed.filter((c) => cookie.has(c.id));
        if (ctx.known) for (const c of conversations) this.#owners.set(c.id, ownerKey(ctx.known), 1);
        return { conversations: conversations.slice(0, 20) };
      }
    }
    if (result.status >= 500 || result.status === 401 || result.status === 403 || result.status === 429) {
      throw badGateway('The support service is not available right now', result.status !== 401 && result.status !== 403);
    }
    if (ctx.known) return { conversations: [] };
    const read = await Promise.all(
      [...cookie].reverse().map(async (id) => {
        const conversation = await upstream.request('GET', `/v0/chat/${id}`, { signal: ctx.request.signal }).catch(() => null);
        return conversation?.status === 200 ? summarize(conversation.body) : null;
      }),
    );
    const conversations = read.filter((c): c is ConversationSummary => c !== null);
    conversations.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
    return { conversations };
  }
}

/** Owners are told apart by kind too: a site id never matches an anonymous cookie's random id. */
function ownerKey(visitor: { id: string }): string {
  return `known:${visitor.id}`;
}

function parseVisitor(body: string): ConversationVisitor | null {
  try {
    const visitor = (JSON.parse(body) as { visitor?: unknown }).visitor as Partial<ConversationVisitor> | undefined;
    if (!visitor || typeof visitor !== 'object' || !isVisitorId(visitor.id)) return null;
    return { id: visitor.id, verified: visitor.verified === true };
  } catch {
    return null;
  }
}

const STATUSES = new Set(['processing', 'completed', 'failed']);

function toSummary(value: unknown): ConversationSummary | null {
  if (!value || typeof value !== 'object') return null;
  const c = value as Record<string, unknown>;
  if (!isConversationId(c.id) || !STATUSES.has(c.status as string) || typeof c.created_at !== 'string' || typeof c.updated_at !== 'string') return null;
  const summary: ConversationSummary = { id: c.id, status: c.status as ConversationSummary['status'], created_at: c.created_at, updated_at: c.updated_at };
  if (typeof c.title === 'string' && c.title) summary.title = c.title;
  return summary;
}

function parseList(body: string): ConversationSummary[] | null {
  try {
    const list = (JSON.parse(body) as { conversations?: unknown }).conversations;
    if (!Array.isArray(list)) return null;
    return list.map(toSummary).filter((c): c is ConversationSummary => c !== null);
  } catch {
    return null;
  }
}

/** A conversation read one by one (plain v0 servers), as a list entry titled by its first question. */
function summarize(body: string): ConversationSummary | null {
  try {
    const conversation = JSON.parse(body) as { messages?: { role?: unknown; content?: unknown }[] };
    const summary = toSummary(conversation);
    const first = conversation.messages?.find((m) => m.role === 'user')?.content;
    if (summary && typeof first === 'string' && first.trim()) {
      const title = first.replace(/\s+/g, ' ').trim();
      summary.title = title.length <= 80 ? title : `${title.slice(0, 79).trimEnd()}…`;
    }
    return summary;
  } catch {
    return null;
  }
}
