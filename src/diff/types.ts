import type { RawTool } from '../listings/canonical.js';
import type { FindingKind } from './catalogue.js';
import type { IdentityListing } from './client-dependence.js';
import type { ContentRecord } from './content-checks.js';
import type { DeclaredHint, HintName } from './hints.js';
import type { ChangeSeverity, Severity } from './severity.js';

import type { TrustLevel } from '../vocabulary/trust-levels.js';

export { TRUST_LEVELS, type TrustLevel } from '../vocabulary/trust-levels.js';

export type { FindingKind } from './catalogue.js';

/**
 * One interpreted difference. The first seven keys are the `--json` contract (docs/design.md §7).
 * `tool` is null for change-level findings (silent_change, no_change_notification,
 * unversioned_change). For content findings `field` is the JSON path of the text within
 * the tool, and there is no before/after: the text is in the listing at that path (it may
 * be megabytes, or hold a NUL that PostgreSQL's jsonb refuses); `record.content` quotes it
 * with invisible characters made visible, as the explanation does.
 * `before`/`after` are left out when the key was absent on that side (or does not apply).
 */
export interface Finding {
  tool: string | null;
  kind: FindingKind;
  severity: Severity;
  field?: string;
  before?: unknown;
  after?: unknown;
  explanation: string;
  record: InterpretationRecord;
}

export interface ListingRef {
  /** Null for the listing before a server's first one: there is none. */
  hash: string | null;
  /** ISO 8601, when known from the caller. */
  firstObserved: string | null;
  lastObserved: string | null;
}

export interface HintRecord {
  /** Null when the tool does not exist on that side. */
  declaredBefore: DeclaredHint | null;
  declaredAfter: DeclaredHint | null;
  effectiveBefore: boolean | null;
  effectiveAfter: boolean | null;
}

export type ControlAction = 'approve-baseline' | 'review' | 'restart-host-sessions';

/** Design §5: everything needed to read a finding on its own (email, `--json`). */
export interface InterpretationRecord {
  server: string | null;
  tool: string | null;
  /** The old name when the tool was matched as a rename. */
  renamedFrom: string | null;
  listings: { before: ListingRef; after: ListingRef };
  trust: { level: TrustLevel; implication: string };
  /** Per hint, declared and effective before/after; null for change-level findings. */
  hints: Record<HintName, HintRecord> | null;
  /** What a host does differently because of this finding. */
  effect: string;
  staleSessions: {
    exposure: string;
    notificationSeen: boolean | null;
    ttlMs: number | null;
    cacheScope: string | null;
  };
  control: { action: ControlAction; text: string };
  /**
   * `base` is the severity before escalations; `basis` says why it differs from the
   * table's (a graded first declaration), or null.
   */
  severity: { base: Severity; basis: string | null; escalations: string[] };
  /** Content findings (docs/design.md §4): the text, where it is, what it matched; else null. */
  content: ContentRecord | null;
}

export interface DeliveryContext {
  /** The server advertises `tools.listChanged` (2025) or `toolsListChanged` (2026). */
  listChangedAdvertised: boolean;
  /** A change notification reached the held session within the grace period. */
  notificationSeen: boolean;
}

export interface HistoryListing {
  /** ISO 8601. */
  observedAt: string;
  tools: readonly RawTool[];
}

export interface ListingObservation {
  firstObserved?: string | null;
  lastObserved?: string | null;
  /** `serverInfo.version` when this listing was seen; both sides' give unversioned_change. */
  serverVersion?: string | null;
  /** The server's `instructions` when this listing was seen: content-checked when new. */
  instructions?: string | null;
}

export interface DiffContext {
  /**
   * The same probe's listings as other client identities (`--also-as`): any that differs
   * from the listing diffed is a client_dependent_listing finding.
   */
  clientListings?: readonly IdentityListing[];
  /** Default `untrusted`: the specification's reading of hints from an unknown source. */
  trust?: TrustLevel;
  server?: string | null;
  before?: ListingObservation;
  after?: ListingObservation;
  /** When given, the change-level findings silent_change / no_change_notification apply. */
  delivery?: DeliveryContext;
  /** For 2026 servers: the cache bound of list results. */
  ttlMs?: number | null;
  cacheScope?: string | null;
  /**
   * Earlier listings of this server, oldest first (normally ending with `before`), for
   * flip_flop. Requires `now`, the time of the `after` observation (ISO 8601).
   */
  history?: readonly HistoryListing[];
  now?: string;
  /**
   * Tools of the other registered servers (name → server name), for tool_shadowing: a
   * text that directs how one of them is used, and a tool whose name is a look-alike of
   * one of them. The whole map, not a lookup by name: a look-alike is found by the
   * confusable skeleton of every name in it. Absent: none known.
   */
  otherServerTools?: ReadonlyMap<string, string>;
  /** Default true. False leaves the content checks out (benchmarks measure both). */
  contentChecks?: boolean;
}

export interface DiffResult {
  severity: ChangeSeverity;
  findings: Finding[];
  /** False when both listings have the same canonical hash: no change at all. */
  changed: boolean;
  /** Null when there was no listing before (checkFirstListing). */
  beforeHash: string | null;
  afterHash: string;
}
