import type { ContentRecord } from './content-checks.js';
import { HINTS, type HintName, type Posture } from './hints.js';
import type { Severity } from './severity.js';
import type {
  ControlAction,
  DiffContext,
  HintRecord,
  InterpretationRecord,
  ListingRef,
  TrustLevel,
} from './types.js';

/** What the trust posture implies for a host reading these hints (docs/design.md §5). */
export function trustImplication(level: TrustLevel): string {
  switch (level) {
    case 'trusted':
      return 'hosts that trust this server act on these hints: a relaxation changes what they confirm and retry';
    case 'partial':
      return 'hosts that partly trust this server may act on these hints: a relaxation should be reviewed before anyone relies on it';
    case 'untrusted':
      return 'hosts should ignore these hints: a relaxation from an untrusted source is a rug-pull signal';
  }
}

/** The control a finding calls for, chosen by its severity. */
export function controlFor(severity: Severity): { action: ControlAction; text: string } {
  switch (severity) {
    case 'critical':
    case 'high':
      return {
        action: 'restart-host-sessions',
        text: 'review now; long-lived host sessions keep the old values until they reconnect, so restart them once the new listing is approved or the server is blocked',
      };
    case 'medium':
    case 'low':
      return {
        action: 'review',
        text: 'review the change, then approve the new baseline',
      };
    case 'info':
      return {
        action: 'approve-baseline',
        text: 'nothing changes how hosts gate calls: approve the new baseline',
      };
  }
}

/** The parts of a record that are the same for every finding of one diff. */
export interface RecordScope {
  server: string | null;
  listings: { before: ListingRef; after: ListingRef };
  trust: InterpretationRecord['trust'];
  staleSessions: InterpretationRecord['staleSessions'];
}

export function recordScope(
  context: DiffContext,
  beforeHash: string | null,
  afterHash: string,
): RecordScope {
  const trust = context.trust ?? 'untrusted';
  const before: ListingRef = {
    hash: beforeHash,
    firstObserved: context.before?.firstObserved ?? null,
    lastObserved: context.before?.lastObserved ?? null,
  };
  const after: ListingRef = {
    hash: afterHash,
    firstObserved: context.after?.firstObserved ?? null,
    lastObserved: context.after?.lastObserved ?? null,
  };
  const notificationSeen = context.delivery?.notificationSeen ?? null;
  const ttlMs = context.ttlMs ?? null;
  const cacheScope = context.cacheScope ?? null;
  return {
    server: context.server ?? null,
    listings: { before, after },
    trust: { level: trust, implication: trustImplication(trust) },
    staleSessions: {
      exposure: staleExposure(before, notificationSeen, ttlMs, cacheScope),
      notificationSeen,
      ttlMs,
      cacheScope,
    },
  };
}

function staleExposure(
  before: ListingRef,
  notificationSeen: boolean | null,
  ttlMs: number | null,
  cacheScope: string | null,
): string {
  const parts: string[] = [];
  if (before.hash === null) {
    parts.push(
      'this is the first listing seen of this server: host sessions that listed it already hold it',
    );
  } else if (before.firstObserved !== null && before.lastObserved !== null) {
    parts.push(
      `sessions that listed between ${before.firstObserved} and ${before.lastObserved} still hold the old values`,
    );
  } else {
    parts.push('sessions that listed the old listing still hold its values');
  }
  if (notificationSeen === true) {
    parts.push(
      'a change notification was observed, so hosts that re-list on it have the new values',
    );
  } else if (notificationSeen === false) {
    parts.push(
      'no change notification was observed, so they keep the old values until they reconnect',
    );
  } else {
    parts.push('whether a change notification was sent is not known');
  }
  if (ttlMs !== null) {
    const scopeText = cacheScope === null ? '' : ` (cache scope ${cacheScope})`;
    parts.push(`cached list results expire within ${ttlMs} ms${scopeText}`);
  }
  return parts.join('; ');
}

export function hintRecords(
  before: Posture | null,
  after: Posture | null,
): Record<HintName, HintRecord> {
  const entry = (hint: HintName): HintRecord => ({
    declaredBefore: before === null ? null : before[hint].declared,
    declaredAfter: after === null ? null : after[hint].declared,
    effectiveBefore: before === null ? null : before[hint].effective,
    effectiveAfter: after === null ? null : after[hint].effective,
  });
  return Object.fromEntries(HINTS.map((hint) => [hint, entry(hint)])) as Record<
    HintName,
    HintRecord
  >;
}

export function buildRecord(
  scope: RecordScope,
  finding: {
    tool: string | null;
    renamedFrom: string | null;
    hints: Record<HintName, HintRecord> | null;
    effect: string;
    base: Severity;
    basis: string | null;
    severity: Severity;
    escalations: readonly string[];
    content: ContentRecord | null;
  },
): InterpretationRecord {
  return {
    server: scope.server,
    tool: finding.tool,
    renamedFrom: finding.renamedFrom,
    listings: scope.listings,
    trust: scope.trust,
    hints: finding.hints,
    effect: finding.effect,
    staleSessions: scope.staleSessions,
    control: controlFor(finding.severity),
    severity: { base: finding.base, basis: finding.basis, escalations: [...finding.escalations] },
    content: finding.content,
  };
}
