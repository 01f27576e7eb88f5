import { ALERT_STATUSES } from '../alerts/alerts-repo.js';
import type { AlertFilter } from '../alerts/alert-list.js';
import { isSeverity, FINDING_KINDS, type Severity } from '../diff/index.js';
import { DriftError } from '../errors.js';
import { FLEET_SORTS, WATCH_MODES, type FleetFilter } from '../read-models/fleet.js';
import { TRANSPORTS } from '../vocabulary/transports.js';
import { TRUST_LEVELS } from '../vocabulary/trust-levels.js';

/*
 * Query and form values as the console's pages and API take them. A value that does not
 * parse is a 400 naming the parameter, never silently ignored: a filter that is dropped
 * would show more than was asked for as if it were the answer.
 */

type Query = Record<string, string | undefined>;

const empty = (value: string | undefined) => value === undefined || value.trim() === '';

function invalid(name: string, value: string, expected: string): DriftError {
  return new DriftError('USAGE', `invalid ${name} "${value}": ${expected}`);
}

export function positiveInt(name: string, value: string | undefined): number | undefined {
  if (empty(value)) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(value!.trim()))
    throw invalid(name, value!, 'give a positive whole number');
  return Number(value!.trim());
}

export function limitOf(value: string | undefined, fallback: number): number {
  const limit = positiveInt('limit', value) ?? fallback;
  return Math.min(limit, 1000);
}

export function severityOf(name: string, value: string | undefined): Severity | undefined {
  if (empty(value)) return undefined;
  if (!isSeverity(value)) throw invalid(name, value!, 'use critical, high, medium, low or info');
  return value;
}

export function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (empty(value)) return undefined;
  if (!(choices as readonly string[]).includes(value!)) {
    throw invalid(name, value!, `use one of ${choices.join(', ')}`);
  }
  return value as T;
}

export function kindOf(value: string | undefined, name = 'kind'): string | undefined {
  return oneOf(name, value, FINDING_KINDS);
}

const RELATIVE = /^(\d{1,4})(h|d)$/;

/** `24h`, `7d`, … back from `now`, or a date or time (ISO 8601; a bare date is UTC midnight). */
export function timeOf(name: string, value: string | undefined, now: Date): Date | undefined {
  if (empty(value)) return undefined;
  const text = value!.trim();
  const relative = RELATIVE.exec(text);
  if (relative) {
    const hours = Number(relative[1]) * (relative[2] === 'd' ? 24 : 1);
    return new Date(now.getTime() - hours * 3_600_000);
  }
  const parsed = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (!Number.isFinite(parsed))
    throw invalid(name, text, 'give 24h, 7d, 30d or a date such as 2026-11-30');
  return new Date(parsed);
}

export function fleetFilterOf(query: Query): FleetFilter {
  const drifted = oneOf('drifted', query['drifted'], ['yes', 'no'] as const);
  return {
    text: empty(query['q']) ? undefined : query['q'],
    health: oneOf('health', query['health'], ['up', 'down', 'unknown'] as const),
    watch: oneOf('watch', query['watch'], WATCH_MODES),
    transport: oneOf('transport', query['transport'], TRANSPORTS),
    trust: oneOf('trust', query['trust'], TRUST_LEVELS),
    drifted: drifted === undefined ? undefined : drifted === 'yes',
    minSeverity: severityOf('severity', query['severity']),
    sort: oneOf('sort', query['sort'], FLEET_SORTS),
  };
}

/** The outbox's filters, for its page, its API and the bulk acknowledge that returns to it. */
export function alertFilterOf(query: Query): AlertFilter {
  return {
    status: oneOf('status', query['status'], ALERT_STATUSES),
    server: empty(query['server']) ? undefined : query['server'],
    minSeverity: severityOf('severity', query['severity']),
    before: positiveInt('before', query['before']),
  };
}

/** The alert ids of a bulk acknowledge, each a positive whole number. */
export function alertIdsOf(values: readonly string[]): number[] {
  return values
    .map((value) => positiveInt('alert id', value))
    .filter((id): id is number => id !== undefined);
}

/**
 * A `next` path the login may send back to: this console's own pages only. Printable ASCII
 * (the login's own links percent-encode the rest) starting with exactly one `/`: `//host`
 * and `/\host` are another host to a browser, which also drops tabs and newlines from a
 * URL, so `/\t/host` would be `//host`.
 */
export function localPath(value: string | undefined): string {
  if (value === undefined || !/^\/(?![/\\])[\x21-\x7e]*$/.test(value) || value.includes('\\'))
    return '/';
  return value;
}
