/**
 * @module Known visitors: who is asking, from the site's own session (`identify`) or a visitor
 * JWT verified with jose (`identity`). It answers only that, and never calls the upstream: which
 * conversations are the visitor's is owners.ts's, and the quota is spent in the upstream step.
 */
import {
  internal,
  isPlausibleEmail,
  isVisitorId,
  NAME_MAX_LENGTH,
  parseBearer,
  unauthorized,
  type ConversationVisitor,
  type VisitorInfo,
} from '../protocol/index.js';
import { readEscalationContact, type EscalationContact } from '../protocol/schemas/index.js';
import { createHmac } from 'node:crypto';
import { RemoteKeySet } from './jwks.js';
import type { Visitor as CookieVisitor } from './visitor.js';
import type { IdentityTokenOptions, KnownVisitor } from './identity-options.js';

export type { IdentityTokenOptions, KnownVisitor } from './identity-options.js';
export type { VisitorInfo } from '../protocol/index.js';

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

export interface IdentityOptions {
  /** The proxy's signing secret: it also keys the visitor tags (`whoIs`). */
  secret: string;
  identify?: (request: Request) => KnownVisitor | null | undefined | Promise<KnownVisitor | null | undefined>;
  identity?: IdentityTokenOptions;
  identityMode: 'optional' | 'required';
  fetch: typeof fetch;
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
  if (!isVisitorId(value.id)) throw internal(false, `${from}: the visitor id must be a string of 1 to 256 printable characters`);
  const known: KnownVisitor = { id: value.id };
  if (typeof value.email === 'string' && isPlausibleEmail(value.email.trim())) known.email = value.email.trim();
  if (typeof value.name === 'string' && value.name.trim() && value.name.length <= NAME_MAX_LENGTH) known.name = value.name.trim();
  return known;
}

/**
 * Who is asking, for one proxy: the signed-in visitor of a request, what the widget may know of
 * them, and what goes upstream in their name. Which conversations are theirs is owners.ts's.
 */
export class VisitorIdentity {
  readonly #options: IdentityOptions;
  #verify: Promise<Verify> | undefined;

  constructor(options: IdentityOptions) {
    this.#options = options;
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
      const token = parseBearer(authorization.trim());
      if (token === null) throw unauthorized('The Authorization header must be "Bearer <visitor token>"');
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
}
