import { SEVERITIES, severityAtLeast, type ChangeSeverity, type Severity } from '../diff/index.js';
import { DriftError } from '../errors.js';

export function parseSeverity(flag: string, value: string | undefined): Severity | undefined {
  if (value === undefined) return undefined;
  if (!(SEVERITIES as readonly string[]).includes(value)) {
    throw new DriftError(
      'USAGE',
      `invalid ${flag} "${value}": use one of ${SEVERITIES.join(', ')}`,
    );
  }
  return value as Severity;
}

/** Called after the output is printed: exit 1 says the threshold was reached (design §7). */
export function enforceFailOn(severity: ChangeSeverity, failOn: Severity | undefined): void {
  if (failOn !== undefined && severityAtLeast(severity, failOn)) {
    throw new DriftError('THRESHOLD_REACHED', `severity ${severity} reaches --fail-on ${failOn}`);
  }
}
