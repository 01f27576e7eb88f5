/** Highest first (docs/design.md, Severity). Same order and names as the config's ALERT_MIN_SEVERITY. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** A change's severity: its highest finding's, or `none` when there are no findings. */
export const CHANGE_SEVERITIES = [...SEVERITIES, 'none'] as const;
export type ChangeSeverity = (typeof CHANGE_SEVERITIES)[number];
