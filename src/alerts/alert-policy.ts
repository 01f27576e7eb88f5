import type { Config } from '../config/schema.js';
import type { ServerRow } from '../db/schema.js';
import { severityAtLeast, type ChangeSeverity, type Severity } from '../diff/index.js';

/** Who hears about which changes (design §8): the global settings a change is judged by. */
export interface AlertPolicy {
  minSeverity: Severity;
  recipients: readonly string[];
  /** Changes of one server within this window go out as one digest; 0 sends each at once. */
  digestSeconds: number;
}

export function alertPolicyOf(config: Config): AlertPolicy {
  return {
    minSeverity: config.ALERT_MIN_SEVERITY,
    recipients: config.ALERT_TO,
    digestSeconds: config.DIGEST_SECONDS,
  };
}

export interface AlertDecision {
  severity: Severity;
  recipients: string[];
}

/**
 * Whether a change of `server` with this severity is alerted, and to whom: the global
 * recipients plus the server's own, once each. A change with no recipients is still
 * alerted: without SMTP it becomes an .eml file, and with SMTP the CLI shows it as failed
 * with the reason, which is better than dropping it unseen.
 */
export function decideAlert(
  policy: AlertPolicy,
  server: Pick<ServerRow, 'notify' | 'alertMinSeverity'>,
  severity: ChangeSeverity,
): AlertDecision | null {
  if (severity === 'none') return null;
  if (!severityAtLeast(severity, server.alertMinSeverity ?? policy.minSeverity)) return null;
  const recipients = [...new Set([...policy.recipients, ...server.notify])];
  return { severity, recipients };
}
