/** @module The period of an insights report: `since` and `until` as ISO 8601 (the API), or relative like `7d` (the CLI too). */

const DAY_MS = 86_400_000;
/** Default length of a report's period. */
export const DEFAULT_PERIOD_DAYS = 7;
/** Longest period one report covers. */
export const MAX_PERIOD_DAYS = 366;

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const RELATIVE = /^(\d{1,4})([dhw])$/;

/** Thrown for a bad `since` or `until`, naming the field. */
export class PeriodError extends Error {
  override name = 'PeriodError';
  constructor(readonly field: 'since' | 'until', message: string) {
    super(message);
  }
}

/**
 * An instant from ISO 8601 (`2026-11-01`, `2026-11-01T08:00:00Z`, `…+02:00`; a date or a time
 * without a zone is UTC) or, when `relative` is allowed, a duration before `now` (`7d`, `12h`, `2w`).
 */
export function parseInstant(value: string, field: 'since' | 'until', now: number, relative = false): Date {
  const rel = relative ? RELATIVE.exec(value) : null;
  if (rel) return new Date(now - Number(rel[1]) * (rel[2] === 'h' ? 3_600_000 : rel[2] === 'w' ? 7 * DAY_MS : DAY_MS));
  const match = ISO.exec(value);
  const text = match && (match[4] === undefined ? `${value}T00:00:00Z` : match[8] === undefined ? `${value}Z` : value);
  const time = text ? Date.parse(text.replace(' ', 'T')) : NaN;
  // Date.parse rolls 2026-02-30 over to March; a date that does not exist is refused.
  if (!match || Number.isNaN(time) || (match[4] === undefined && new Date(time).toISOString().slice(0, 10) !== value)) {
    throw new PeriodError(field, `"${field}" must be an ISO 8601 date or date-time${relative ? ' or a duration like 7d' : ''}, got "${value.slice(0, 40)}"`);
  }
  return new Date(time);
}

/**
 * The report's period, `since` included and `until` not: `until` defaults to the end of the current
 * millisecond (what happened at `now` is counted), `since` to 7 days before `until`; at most 366 days.
 */
export function parsePeriod(input: { since?: string | null; until?: string | null }, now: number, relative = false): { since: Date; until: Date } {
  const until = input.until ? parseInstant(input.until, 'until', now, relative) : new Date(now + 1);
  const since = input.since ? parseInstant(input.since, 'since', now, relative) : new Date(until.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS);
  if (since.getTime() >= until.getTime()) throw new PeriodError('since', '"since" must be before "until"');
  if (until.getTime() - since.getTime() > MAX_PERIOD_DAYS * DAY_MS) throw new PeriodError('since', `the period from "since" to "until" must be at most ${MAX_PERIOD_DAYS} days`);
  return { since, until };
}
