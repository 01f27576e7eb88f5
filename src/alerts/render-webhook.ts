import { buildAlertView } from './alert-view.js';
import type { AlertMessageInput } from './render-alert.js';

/** A webhook body stays bounded even for a change of thousands of findings. */
const MAX_FINDINGS = 1000;

/**
 * The JSON document a webhook receives: the changes with every finding and its
 * interpretation record as stored (server text as the server sent it: JSON escapes it,
 * and a program reading it should see it exactly), the server, and the commands to
 * inspect, acknowledge and approve. `delivery` equals the X-Mcp-Drift-Delivery header.
 * Pure.
 */
export function renderWebhook(input: AlertMessageInput & { delivery: string }): object {
  const view = buildAlertView(input);
  let budget = MAX_FINDINGS;
  return {
    type: 'mcp-drift.alert',
    version: 1,
    delivery: input.delivery,
    alert: input.alertId,
    server: {
      name: input.server.name,
      trust: input.server.trust,
      trustImplication: view.trust.implication,
    },
    severity: view.severity,
    headline: view.headline,
    /** Null unless the drift since the approved baseline is graded higher than `severity`. */
    sinceApproval:
      view.sinceApproval === null
        ? null
        : {
            severity: view.sinceApproval.severity,
            findings: view.sinceApproval.findings,
            baseline: view.sinceApproval.baseline,
            command: view.sinceApproval.command,
          },
    changes: input.changes.map(({ change, findings }) => {
      const shown = findings.slice(0, Math.max(0, budget));
      budget -= shown.length;
      return {
        id: change.id,
        severity: change.severity,
        detectedAt: change.detectedAt.toISOString(),
        fromHash: change.fromHash,
        toHash: change.toHash,
        notificationSeen: change.notificationSeen,
        exposure: change.exposure,
        sinceBaseline: change.sinceBaseline,
        findings: shown.map((finding) => ({
          tool: finding.tool,
          kind: finding.kind,
          severity: finding.severity,
          field: finding.field,
          before: finding.before,
          after: finding.after,
          explanation: finding.explanation,
          record: finding.record,
        })),
        omittedFindings: findings.length - shown.length,
      };
    }),
    control: view.control,
    commands: {
      show: input.changes.map(({ change }) => `mcp-drift change show ${change.id}`),
      ack: view.commands.ack,
      approve: view.commands.approve,
    },
  };
}

/** What `alerts test` posts to a webhook. */
export function renderWebhookTest(delivery: string): object {
  return {
    type: 'mcp-drift.test',
    version: 1,
    delivery,
    message: 'mcp-drift can reach this webhook; alerts will arrive as type mcp-drift.alert',
  };
}
