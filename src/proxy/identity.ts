/**
 * @module Known visitors: who is asking, from the site's own session (`identify`) or a visitor
 * JWT verified with jose (`identity`), and which conversations are theirs. A known visitor's
 * conversations belong to their id (any device where they are signed in reads them); an anonymous
 * visitor's stay bound to the signed cookie. The two never mix, so a shared browser shows nothing
 * of a visitor once they sign out.
 */
import {
  HttpError,
  isConversationId,
  isPlausibleEmail,
  isVisitorId,
  NAME_MAX_LENGTH,
  type ConversationSummary,
  type ConversationVisitor,
} from '../protocol/index.js';
import { readEscalationContact, type EscalationContact } from '../protocol/schemas/index.js';
import { createHmac } from 'node:crypto';
import { TtlLruCache } from './cache.js';
import { RemoteKeySet } from './jwks.js';
import type { Upstream } from './upstream.js';
import type { Visitor as CookieVisitor } from './visitor.js';
import type { IdentityTokenOptions, KnownVisitor } from './identity-options.js';

export type { IdentityTokenOptions, KnownVisitor } from './identity-options.js';

/** What the identity functions need of the handler's request state. */
export interface IdentityContext {
  request: Request;
  /** The cookie's anonymous visitor. */
  visitor: CookieVisitor;
  /** The signed-in visitor, or null when anonymous. */
  known: KnownVisitor | null;
}

/** Longest lifetime a visitor JWT may have left: a leaked token is worth a day at most. */
const MAX_TOKEN_SECONDS = 24 * 60 * 60;
/** Clock skew allowed between the app that signs tokens and the proxy, in seconds. */
const CLOCK_TOLERANCE_SECONDS = 30;
/** Conversations whose owner this proxy remembers (without asking upstream again), and for how long. */
const OWNERS_MAX = 100_000;
const OWNERS_TTL_MS = 60 * 60 * 1000;

const unauthorized = (message: string) => new HttpError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer realm="support-chat"' } });
const notFound = () => new HttpError(404, 'not_found', 'Resource not found');

export interface IdentityOptions {
  /** The proxy's signing secret: it also keys the visitor tags (`whoIs`). */
  secret: string;
  identify?: (request: Request) => KnownVisitor | null | undefined | Promise<KnownVisitor | null | undefined>;
  identity?: IdentityTokenOptions;
  identityMode: 'optional' | 'required';
  fetch: typeof fetch;
}

/**
 * `GET {basePath}/visitor`: who the request's visitor is, for the widget, with no secret in it.
 * `tag` is a pseudonym of a known visitor's id (an HMAC under the proxy's secret): the widget keeps
 * it with what it stores, and a different tag (or none) means another visitor is here now.
 */
export interface VisitorInfo {
  known: boolean;
  tag?: string;
  name?: string;
  email?: string;
}

type Verify = (token: string) => Promise<Record<string, unknown>>;

/** The jose verifier of the `identity` option, loaded only when that option is set. */
async function tokenVerifier(options: IdentityTokenOptions, fetchImpl: typeof fetch): Promise<Verify> {
  const jose = await import('jose');
  const common = { issuer: options.issuer, audience: options.audience, requiredClaims: ['sub', 'exp'], clockTolerance: CLOCK_TOLERANCE_SECONDS };
  if (options.secret !== undefined) {
    const key = new TextEncoder().encode(options.secret);
    return async (token) => (await jose.jwtVerify(token, key, { ...common, algorithms: ['HS256'] })).payload;
  }
  const keys = new RemoteKeySet(new URL(options.jwksUrl!), jose, { fetch: fetchImpl });
  return async (token) => (await jose.jwtVerify(token, keys.getKey, { ...common, algorithms: ['RS256', 'ES256'] })).payload;
}

/** A visitor from `identify` or a token's claims, checked: a bad id is the site's bug (500); a bad email or name is dropped. */
function toKnown(value: { id?: unknown; email?: unknown; name?: unknown }, from: string): KnownVisitor {
  if (!isVisitorId(value.id)) throw new HttpError(500, 'internal_error', `${from}: the visitor id must be a string of 1 to 256 printable characters`, { retryable: false });
  const known: KnownVisitor = { id: value.id };
  if (typeof value.email === 'string' && isPlausibleEmail(value.email.trim())) known.email = value.email.trim();
  if (typeof value.name === 'string' && value.name.trim() && value.name.length <= NAME_MAX_LENGTH) known.name = value.name.trim();
  return known;
}

/**
 * Resolves visitors and checks what is theirs, for one proxy. Conversations' owners are learnt
 * when they are started here, or from the upstream's `visitor` (our server's extension), and kept
 * in memory; a plain v0 server names no owner, so there only the proxy that started a known
 * visitor's conversation can vouch for it.
 */
export class VisitorIdentity {
  readonly #options: IdentityOptions;
  readonly #upstream: Upstream;
  readonly #owners = new TtlLruCache<string>({ ttlMs: OWNERS_TTL_MS, maxEntries: OWNERS_MAX, maxBytes: Number.MAX_SAFE_INTEGER });
  #verify: Promise<Verify> | undefined;

  constructor(options: IdentityOptions, upstream: Upstream) {
    this.#options = options;
    this.#upstream = upstream;
  }

  /** Whether any visitor can be known (an `identify` or `identity` option is set). */
  get enabled(): boolean {
    return this.#options.identify !== undefined || this.#options.identity !== undefined;
  }

  /**
   * The signed-in visitor of a request, or null when anonymous. A visitor JWT that does not verify
   * is 401, never anonymous; so is an anonymous request in `required` mode.
   */
  async resolve(request: Request): Promise<KnownVisitor | null> {
    if (!this.enabled) return null;
    const authorization = request.headers.get('authorization');
    if (authorization !== null && this.#options.identity) {
      const [scheme, token, extra] = authorization.trim().split(/\s+/, 3);
      if (scheme?.toLowerCase() !== 'bearer' || !token || extra !== undefined || token.length > 8192) throw unauthorized('The Authorization header must be "Bearer <visitor token>"');
      return this.#fromToken(token);
    }
    const identified = this.#options.identify ? await this.#options.identify(request) : null;
    if (identified) return toKnown(identified, 'identify');
    if (this.#options.identityMode === 'required') throw unauthorized('Sign in to use support chat');
    return null;
  }

  async #fromToken(token: string): Promise<KnownVisitor> {
    this.#verify ??= tokenVerifier(this.#options.identity!, this.#options.fetch);
    let claims: Record<string, unknown>;
    try {
      claims = await (await this.#verify)(token);
    } catch {
      // Tampered, expired, wrongly signed, `alg: none`, an unknown `kid`, a wrong issuer or audience: all alike to the browser.
      throw unauthorized('Visitor token is invalid or expired');
    }
    if (typeof claims.exp !== 'number' || claims.exp > Date.now() / 1000 + MAX_TOKEN_SECONDS + CLOCK_TOLERANCE_SECONDS) {
      throw unauthorized('Visitor token must expire within 24 hours');
    }
    if (!isVisitorId(claims.sub)) throw unauthorized('Visitor token is invalid or expired');
    return toKnown({ id: claims.sub, email: claims.email, name: claims.name }, 'identity token');
  }

  /** Who the request's visitor is (`GET {basePath}/visitor`): no upstream call, no secret. */
  whoIs(ctx: IdentityContext): VisitorInfo {
    const known = ctx.known;
    if (!known) return { known: false };
    const info: VisitorInfo = { known: true, tag: createHmac('sha256', this.#options.secret).update(`visitor-tag:${known.id}`).digest('base64url').slice(0, 22) };
    if (known.name) info.name = known.name;
    if (known.email) info.email = known.email;
    return info;
  }

  /** The `visitor` sent upstream with a message: the known visitor, vouched for; or the cookie's random id. */
  upstreamVisitor(ctx: IdentityContext): ConversationVisitor {
    if (!ctx.known) return { id: ctx.visitor.id, verified: false };
    const visitor: ConversationVisitor = { id: ctx.known.id, verified: true };
    if (ctx.known.email) visitor.email = ctx.known.email;
    if (ctx.known.name) visitor.name = ctx.known.name;
    return visitor;
  }

  /** Records a conversation just started: a known visitor's belongs to their id; an anonymous one's goes into the cookie (by the caller). */
  started(ctx: IdentityContext, id: string): void {
    if (ctx.known) this.#owners.set(id, ownerKey(ctx.known), 1);
  }

  /**
   * Whether conversation `id` is the request's visitor's. Anonymous: it is in their cookie. Known:
   * it was started by their id, as remembered here or as the upstream says (one upstream read the
   * first time this proxy sees it).
   */
  async owns(ctx: IdentityContext, id: string, spend: () => void): Promise<boolean> {
    if (!isConversationId(id)) return false;
    if (!ctx.known) return ctx.visitor.conversations.includes(id) && !this.#owners.get(id)?.startsWith('known:');
    const key = ownerKey(ctx.known);
    const owner = this.#owners.get(id);
    if (owner !== undefined) return owner === key;
    spend();
    const result = await this.#upstream.request('GET', `/v0/chat/${id}`, { signal: ctx.request.signal });
    if (result.status !== 200) return false;
    const visitor = parseVisitor(result.body);
    if (!visitor) return false;
    this.#owners.set(id, visitor.verified ? ownerKey(visitor) : `anon:${visitor.id}`, 1);
    return visitor.verified && visitor.id === ctx.known.id;
  }

  /** Throws 404 unless conversation `id` is the request's visitor's. */
  async ensureOwns(ctx: IdentityContext, id: string, spend: () => void): Promise<void> {
    if (!(await this.owns(ctx, id, spend))) throw notFound();
  }

  /**
   * The escalation's name and email: a known visitor's come from the identity (the body may omit
   * them; the identity's email wins, so the ticket can say the site verified it).
   */
  escalationContact(ctx: IdentityContext, body: Record<string, unknown>): EscalationContact {
    const known = ctx.known;
    if (!known) return readEscalationContact(body);
    const merged = { ...body };
    if (known.email) merged.email = known.email;
    if (known.name && (merged.name === undefined || merged.name === null || merged.name === '')) merged.name = known.name;
    if ((merged.name === undefined || merged.name === null) && known.email) merged.name = known.email;
    return readEscalationContact(merged);
  }

  /**
   * `GET {basePath}/chat`: the visitor's conversations, newest first. Known: their id's, from the
   * upstream's list; anonymous: the ones bound to their cookie. Behind a plain v0 server (no list),
   * an anonymous visitor's are read one by one and a known visitor has none listed.
   */
  async list(ctx: IdentityContext, spend: () => void): Promise<{ conversations: ConversationSummary[] }> {
    const visitor = this.upstreamVisitor(ctx);
    const cookie = new Set(ctx.visitor.conversations);
    spend();
    const result = await this.#upstream.request('GET', `/v0/chat?visitor_id=${encodeURIComponent(visitor.id)}&limit=50`, { signal: ctx.request.signal });
    if (result.status === 200) {
      const listed = parseList(result.body);
      if (listed) {
        const conversations = ctx.known ? listed : listed.filter((c) => cookie.has(c.id));
        if (ctx.known) for (const c of conversations) this.#owners.set(c.id, ownerKey(ctx.known), 1);
        return { conversations: conversations.slice(0, 20) };
      }
    }
    if (result.status >= 500 || result.status === 401 || result.status === 403 || result.status === 429) {
      throw new HttpError(502, 'internal_error', 'The support service is not available right now', { retryable: result.status !== 401 && result.status !== 403 });
    }
    if (ctx.known) return { conversations: [] };
    const read = await Promise.all(
      [...cookie].reverse().map(async (id) => {
        const conversation = await this.#upstream.request('GET', `/v0/chat/${id}`, { signal: ctx.request.signal }).catch(() => null);
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
