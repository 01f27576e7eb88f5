import {
  SEVERITIES,
  severityAtLeast,
  type ChangeSeverity,
  type Severity,
} from '../diff/severity.js';
import { TRUST_LEVELS, type TrustLevel } from '../diff/types.js';
import { DriftError } from '../errors.js';
import type { Problems } from '../problems.js';

/*
 * Checks of flag values shared by several commands. Each records what is wrong in the
 * command's Problems, so that one run reports every bad value at once.
 */

export function severityFlag(
  problems: Problems,
  flag: string,
  value: string | undefined,
): Severity | undefined {
  if (value === undefined) return undefined;
  if ((SEVERITIES as readonly string[]).includes(value)) return value as Severity;
  problems.add('USAGE', `invalid ${flag} "${value}": use one of ${SEVERITIES.join(', ')}`);
  return undefined;
}

export function trustFlag(problems: Problems, value: string | undefined): TrustLevel | undefined {
  if (value === undefined) return undefined;
  if ((TRUST_LEVELS as readonly string[]).includes(value)) return value as TrustLevel;
  problems.add(
    'INVALID_INPUT',
    `invalid --trust "${value}": use one of ${TRUST_LEVELS.join(', ')}`,
  );
  return undefined;
}

/** A count or an id given on the command line: a positive whole number. */
export function positiveInteger(problems: Problems, what: string, text: string): number {
  const value = Number(text);
  if (Number.isSafeInteger(value) && value >= 1) return value;
  problems.add('USAGE', `invalid ${what} "${text}": give a positive whole number`);
  return 0;
}

/** `--limit N`, 50 unless given. */
export function limitFlag(problems: Problems, text: string | undefined): number {
  return text === undefined ? 50 : positiveInteger(problems, '--limit', text);
}

export const FORMATS = ['text', 'json', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

/** `--format text|json|sarif`; `--json` is short for `--format json`. */
export function formatFlag(
  problems: Problems,
  value: string | undefined,
  json: boolean | undefined,
): Format {
  if (value === undefined) return json ? 'json' : 'text';
  if (!(FORMATS as readonly string[]).includes(value)) {
    problems.add('USAGE', `invalid --format "${value}": use one of ${FORMATS.join(', ')}`);
    return 'text';
  }
  if (json && value !== 'json') {
    problems.add('USAGE', `--json is --format json: give one of --json and --format ${value}`);
  }
  return value as Format;
}

/** Called after the output is printed: exit 1 says the threshold was reached (docs/design.md §7). */
export function enforceFailOn(severity: ChangeSeverity, failOn: Severity | undefined): void {
  if (failOn !== undefined && severityAtLeast(severity, failOn)) {
    throw new DriftError('THRESHOLD_REACHED', `severity ${severity} reaches --fail-on ${failOn}`);
  }
}
