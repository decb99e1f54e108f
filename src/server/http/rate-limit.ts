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
  /** Lower per-organization limits of some endpoints. @default {send: 300, escalate: 30, deleteTicket: 60} */
  endpoints: { send: number; escalate: number; deleteTicket: number };
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  perToken: 120,
  perOrganization: 600,
  perAddress: 60,
  endpoints: { send: 300, escalate: 30, deleteTicket: 60 },
};

/**
 * In-memory limiter for one process: the protocol's fixed one-minute windows (shared with the
 * proxy). Consuming is synchronous, so concurrent requests are counted exactly. A 429 consumes nothing.
 */
export class MemoryRateLimiter extends FixedWindowLimiter implements RateLimiter {}
