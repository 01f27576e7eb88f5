import { SEVERITIES, type ChangeSeverity, type Severity } from '../vocabulary/severities.js';

export { SEVERITIES, type ChangeSeverity, type Severity };

const RANK: Record<ChangeSeverity, number> = {
  none: 0,
  info: 1,
  low: 2,
  medium: 3,
  high: 4,
  critical: 5,
};

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/** Negative when `a` is less severe than `b`; sorts ascending. */
export function compareSeverity(a: ChangeSeverity, b: ChangeSeverity): number {
  return RANK[a] - RANK[b];
}

/** True when `severity` reaches `threshold` (for `--fail-on` and alert minimums). */
export function severityAtLeast(severity: ChangeSeverity, threshold: Severity): boolean {
  return RANK[severity] >= RANK[threshold];
}

/** One level up, capped at critical (docs/design.md §4, escalations). */
export function escalate(severity: Severity): Severity {
  switch (severity) {
    case 'info':
      return 'low';
    case 'low':
      return 'medium';
    case 'medium':
      return 'high';
    case 'high':
    case 'critical':
      return 'critical';
  }
}

export function maxSeverity(severities: Iterable<ChangeSeverity>): ChangeSeverity {
  let worst: ChangeSeverity = 'none';
  for (const severity of severities) if (RANK[severity] > RANK[worst]) worst = severity;
  return worst;
}

export function changeSeverity(findings: ReadonlyArray<{ severity: Severity }>): ChangeSeverity {
  return maxSeverity(findings.map((finding) => finding.severity));
}
