/** @module Fixed one-minute window rate limits: per token, per organization, per endpoint, per client address. */

import { FixedWindowLimiter, type Bucket, type RateDecision } from '../../protocol/index.js';

export { setRateLimitHeaders, type Bucket, type RateDecision } from '../../protocol/index.js';

/**
 * Checks every bucket and consumes one request from each only when all allow it, atomically.
 * The in-memory limiter answers synchronously; a shared one (Redis) with a Promise.
 */
export interface RateLimiter {
  consume(buckets: Bucket[]): RateDecision | Promise<RateDecision>;
  /** Resolves when the limiter can count (connected), for limiters that connect. */
  ready?(): Promise<void>;
  /** Releases connections, for limiters that hold any. */
  close?(): Promise<void>;
}

export interface RateLimits {
  /** Per API token per minute. @default 120 */
  perToken: number;
  /** Per organization per minute, across its tokens. @default 600 */
  perOrganization: number;
  /** Per client address per minute, for requests without a valid token. @default 60 */
  perAddress: number;
  /**
   * Per-organization limits of some endpoints: `send`, `escalate` and `deleteTicket` are lower
   * limits counted besides the token's and the organization's; `search` stands alone (see
   * `STANDALONE_BUCKETS`). @default {send: 300, escalate: 30, deleteTicket: 60, search: 1200}
   */
  endpoints: { send: number; escalate: number; deleteTicket: number; search: number };
}

/** An endpoint's own per-organization bucket. */
export type EndpointBucket = keyof RateLimits['endpoints'];

export const DEFAULT_RATE_LIMITS: RateLimits = {
  perToken: 120,
  perOrganization: 600,
  perAddress: 60,
  // Search-as-you-type sends a search every few keystrokes, and a docs site's proxy holds one
  // token for all its visitors: 1,200 a minute is 20 searches a second for the organization.
  endpoints: { send: 300, escalate: 30, deleteTicket: 60, search: 1200 },
};

/**
 * Buckets counted instead of the token's and the organization's general limits, not besides
 * them: search through one proxy token would otherwise stop at the token's 120 a minute.
 */
export const STANDALONE_BUCKETS: ReadonlySet<EndpointBucket> = new Set(['search']);

/** The limit a bucket key of `orgId`'s request counts (as `tokenBuckets` names them), in words, for an error that names it. */
export function bucketName(key: string | undefined, orgId: string): string {
  if (key?.startsWith('token:')) return 'per-token limit';
  if (key === `org:${orgId}`) return 'per-organization limit';
  if (key?.startsWith(`org:${orgId}:`)) return `per-organization ${key.slice(`org:${orgId}:`.length)} limit`;
  return 'rate limit';
}

/**
 * In-memory limiter for one process: the protocol's fixed one-minute windows (shared with the
 * proxy). Consuming is synchronous, so concurrent requests are counted exactly. A 429 consumes nothing.
 */
export class MemoryRateLimiter extends FixedWindowLimiter implements RateLimiter {}
