import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderAlert } from '../../src/alerts/render-alert.js';
import { renderSlack } from '../../src/alerts/render-slack.js';
import { renderWebhook } from '../../src/alerts/render-webhook.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { withHints } from '../support/probe-results.js';
import { storedChange } from './stored-change.js';

/*
 * An alert whose change is less severe than the drift since the approved baseline says so
 * in every channel; one whose drift is no worse does not (docs/alerts.md).
 */

const memory: RawTool[] = JSON.parse(readFileSync('test/fixtures/listings/memory.json', 'utf8'));
const after = withHints(memory, 'add_observations', { idempotentHint: true });
const BASELINE = 'ab'.repeat(32);

function input(severity: 'critical' | 'high') {
  const change = storedChange(memory, after, {
    id: 7,
    trust: 'trusted',
    sinceBaseline: { baselineHash: BASELINE, severity, findings: 4 },
  });
  return { server: { name: 'memory', trust: 'trusted' as const }, alertId: 3, changes: [change] };
}

describe('the severity since approval in alerts', () => {
  it('is in the email, the Slack message and the webhook body when it is higher', () => {
    const high = input('critical');
    expect(high.changes[0]!.change.severity).toBe('high');
    const mail = renderAlert(high);
    expect(mail.text).toContain(
      `Since approval: CRITICAL: since the approved baseline ${BASELINE.slice(0, 12)}, the listing has drifted by 4 findings graded CRITICAL as one change, higher than this alert's HIGH; see mcp-drift baseline diff memory`,
    );
    expect(mail.html).toContain('mcp-drift baseline diff memory');

    const slack = JSON.stringify(renderSlack(high).blocks);
    expect(slack).toContain('*Since approval* CRITICAL');
    expect(slack).toContain('`mcp-drift baseline diff memory`');

    const body = renderWebhook({ ...high, delivery: 'd-1' }) as Record<string, unknown>;
    expect(body['severity']).toBe('high');
    expect(body['sinceApproval']).toEqual({
      severity: 'critical',
      findings: 4,
      baseline: BASELINE.slice(0, 12),
      command: 'mcp-drift baseline diff memory',
    });
  });

  it('is left out when the drift is graded no higher than the alert', () => {
    const same = input('high');
    expect(renderAlert(same).text).not.toContain('Since approval');
    expect(JSON.stringify(renderSlack(same).blocks)).not.toContain('Since approval');
    expect(
      (renderWebhook({ ...same, delivery: 'd-2' }) as Record<string, unknown>)['sinceApproval'],
    ).toBeNull();
  });
});
