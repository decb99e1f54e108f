/** @module `serve`'s rate-limit flags: every limit of the server, from a flag or its environment variable. */
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../server/http/rate-limit.js';
import { CliError, type OptionSpec } from '../args.js';

type Limit = Exclude<keyof RateLimits, 'endpoints'> | `endpoints.${keyof RateLimits['endpoints']}`;

/** Each limit's flag, environment variable and what it counts; the defaults are the server's. */
const LIMITS: { flag: string; env: string; limit: Limit; counts: string }[] = [
  { flag: 'rate-limit-token', env: 'SUPPORT_CHAT_RATE_LIMIT_TOKEN', limit: 'perToken', counts: 'requests a minute per API token' },
  { flag: 'rate-limit-org', env: 'SUPPORT_CHAT_RATE_LIMIT_ORG', limit: 'perOrganization', counts: "requests a minute per organization, across its tokens" },
  { flag: 'rate-limit-address', env: 'SUPPORT_CHAT_RATE_LIMIT_ADDRESS', limit: 'perAddress', counts: 'requests a minute per client address without a valid token' },
  { flag: 'rate-limit-send', env: 'SUPPORT_CHAT_RATE_LIMIT_SEND', limit: 'endpoints.send', counts: 'messages sent (POST /v0/chat, MCP ask) a minute per organization' },
  { flag: 'rate-limit-escalate', env: 'SUPPORT_CHAT_RATE_LIMIT_ESCALATE', limit: 'endpoints.escalate', counts: 'escalations a minute per organization' },
  { flag: 'rate-limit-delete-ticket', env: 'SUPPORT_CHAT_RATE_LIMIT_DELETE_TICKET', limit: 'endpoints.deleteTicket', counts: 'ticket deletions a minute per organization' },
  { flag: 'rate-limit-search', env: 'SUPPORT_CHAT_RATE_LIMIT_SEARCH', limit: 'endpoints.search', counts: 'searches (GET /v0/search, MCP search_docs) a minute per organization' },
];

const defaultOf = (limit: Limit): number =>
  limit.startsWith('endpoints.') ? DEFAULT_RATE_LIMITS.endpoints[limit.slice('endpoints.'.length) as keyof RateLimits['endpoints']] : DEFAULT_RATE_LIMITS[limit as Exclude<keyof RateLimits, 'endpoints'>];

/** The flags, for `parse` (each falls back on its environment variable, as `--help` says). */
export const RATE_LIMIT_OPTIONS: Record<string, OptionSpec> = Object.fromEntries(
  LIMITS.map(({ flag, env, limit, counts }) => [flag, { type: 'string', value: 'N', env, fallback: defaultOf(limit).toLocaleString('en-US'), description: counts }] as const),
);

/**
 * The limits set by flag or environment (parse has already put the variable's value in place of a
 * missing flag); a CliError naming the flag when one is not a positive whole number.
 *
 * @example
 * rateLimitsFrom({ 'rate-limit-search': '3000' }); // { endpoints: { search: 3000 } }
 */
export function rateLimitsFrom(values: Record<string, string | boolean | undefined>): Partial<Omit<RateLimits, 'endpoints'>> & { endpoints: Partial<RateLimits['endpoints']> } {
  const limits: Partial<Omit<RateLimits, 'endpoints'>> & { endpoints: Partial<RateLimits['endpoints']> } = { endpoints: {} };
  for (const { flag, env, limit } of LIMITS) {
    const text = values[flag];
    if (typeof text !== 'string') continue;
    const value = Number(text);
    if (text.trim() === '' || !Number.isInteger(value) || value < 1) throw new CliError(`--${flag} (or ${env}) must be a positive whole number of requests a minute, got "${text}"`);
    if (limit.startsWith('endpoints.')) limits.endpoints[limit.slice('endpoints.'.length) as keyof RateLimits['endpoints']] = value;
    else limits[limit as Exclude<keyof RateLimits, 'endpoints'>] = value;
  }
  return limits;
}
