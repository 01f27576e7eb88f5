import { expect } from 'vitest';
import type { ChangeRow, FindingRow, SinceBaseline } from '../../src/db/schema.js';
import type { AlertChange } from '../../src/alerts/render-alert.js';
import { diffListings, type DeliveryContext, type TrustLevel } from '../../src/diff/index.js';
import type { RawTool } from '../../src/listings/canonical.js';

// Shared by the alert renderers' tests (email, Slack, webhook).

export const OLD_FIRST = '2026-11-30T10:00:00.000Z';
export const OLD_LAST = '2026-11-30T11:55:00.000Z';
export const DETECTED = new Date('2026-11-30T12:00:00.000Z');

export interface ChangeOptions {
  id: number;
  server?: string;
  trust?: TrustLevel;
  delivery?: DeliveryContext;
  detectedAt?: Date;
  ttlMs?: number | null;
  cacheScope?: string | null;
  sinceBaseline?: SinceBaseline | null;
}

/**
 * A change of two real listings as the recorder stores it (record-observation.ts and
 * changes-repo.ts): jsonb columns go through JSON, as they do in the database.
 */
export function storedChange(
  before: RawTool[],
  after: RawTool[],
  options: ChangeOptions,
): AlertChange {
  const detectedAt = options.detectedAt ?? DETECTED;
  const now = detectedAt.toISOString();
  const diff = diffListings(before, after, {
    trust: options.trust ?? 'untrusted',
    server: options.server ?? 'memory',
    before: { firstObserved: OLD_FIRST, lastObserved: OLD_LAST },
    after: { firstObserved: now, lastObserved: now },
    delivery: options.delivery,
    ttlMs: options.ttlMs ?? null,
    cacheScope: options.cacheScope ?? null,
  });
  expect(diff.changed).toBe(true);
  const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
  const change: ChangeRow = {
    id: options.id,
    serverId: 1,
    previousChangeId: options.id - 1,
    fromHash: diff.beforeHash,
    toHash: diff.afterHash,
    observationId: 100 + options.id,
    detectedAt,
    severity: diff.severity,
    notificationSeen: options.delivery?.notificationSeen ?? null,
    exposure: json({
      oldListing: { hash: diff.beforeHash, firstObserved: OLD_FIRST, lastObserved: OLD_LAST },
      notificationSeen: options.delivery?.notificationSeen ?? null,
      listChangedAdvertised: options.delivery?.listChangedAdvertised ?? null,
      ttlMs: options.ttlMs ?? null,
      cacheScope: options.cacheScope ?? null,
    }),
    sinceBaseline: options.sinceBaseline ?? null,
  };
  const findings: FindingRow[] = diff.findings.map((finding, index) => ({
    id: options.id * 1000 + index,
    changeId: options.id,
    tool: finding.tool,
    kind: finding.kind,
    severity: finding.severity,
    field: finding.field ?? null,
    before: finding.before === undefined ? null : json(finding.before),
    after: finding.after === undefined ? null : json(finding.after),
    explanation: finding.explanation,
    record: json(finding.record) as unknown as Record<string, unknown>,
  }));
  return { change, findings };
}
