import type { ChangeRow, FindingRow } from '../db/schema.js';
import type { HintName } from '../diff/hints.js';
import {
  SEVERITIES,
  kindEntry,
  type ContentRecord,
  compareSeverity,
  controlFor,
  maxSeverity,
  sanitizeForTerminal,
  trustImplication,
  type ChangeSeverity,
  type HintRecord,
  type InterpretationRecord,
  type Severity,
  type TrustLevel,
} from '../diff/index.js';
import { DriftError } from '../errors.js';
import type { HeadlineRow } from './finding-row.js';
import type { AlertChange, AlertMessageInput } from './render-alert.js';

/** How much of a change an email carries; the rest is one `change show` away. */
export const ALERT_LIMITS = {
  /** Findings per message, shared among the changes of a digest so each shows its worst. */
  findings: 50,
  toolsPerChange: 20,
  changesPerMessage: 20,
  /** Any one server-supplied string: a description can be megabytes. */
  text: 500,
  subject: 200,
  /** A tool name inside a headline, so that the verb after it survives the subject's cap. */
  headlineTool: 60,
} as const;

export interface FindingView {
  severity: Severity;
  text: string;
  /**
   * Labelled values where they say more than the explanation: before/after of a
   * description or title, or the offending text of a content finding (with invisible
   * characters made visible) and the hidden text decoded.
   */
  values: Array<{ label: string; value: string }> | null;
}

export interface ToolView {
  name: string;
  renamedFrom: string | null;
  worst: Severity;
  findings: FindingView[];
  hints: Record<HintName, HintRecord> | null;
}

/** Design §5: who may still gate on the old values, and for how long. */
export interface StaleView {
  heldBy: string;
  notification: string;
  ttl: string;
}

export interface ChangeView {
  id: number;
  severity: ChangeSeverity;
  detectedAt: string;
  /** Null for a server's first listing (a change recorded for its content findings). */
  fromHash: string | null;
  toHash: string;
  headline: string;
  /** Findings about the listing as a whole (silent_change, no_change_notification). */
  listingFindings: FindingView[];
  tools: ToolView[];
  omittedFindings: number;
  omittedTools: number;
  stale: StaleView;
}

export interface AlertView {
  server: string;
  trust: { level: TrustLevel; implication: string };
  severity: ChangeSeverity;
  headline: string;
  /** The worst finding's explanation, for the opening lines. */
  worst: string | null;
  notNotified: boolean;
  totalChanges: number;
  totalFindings: number;
  /** "2 critical, 1 medium". */
  counts: string;
  firstDetected: string;
  lastDetected: string;
  changes: ChangeView[];
  omittedChanges: number;
  /**
   * The drift since the approved baseline, graded as one change, when it is worse than what
   * this alert's changes say (docs/alerts.md): small steps that add up.
   */
  sinceApproval: SinceApprovalView | null;
  control: string;
  commands: { show: string[]; ack: string; approve: string; more: string | null };
}

export interface SinceApprovalView {
  severity: ChangeSeverity;
  findings: number;
  baseline: string;
  /** One sentence for every channel, with the command that shows the whole drift. */
  text: string;
  command: string;
}

/**
 * Server-supplied text as it may appear in a message (docs/design.md §9): no control characters or
 * line breaks (the same rule as the terminal's), and no longer than `max`.
 */
export function clean(text: string, max: number = ALERT_LIMITS.text): string {
  return clip(sanitizeForTerminal(text), max);
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  // Never split a surrogate pair: half of one is not text.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  // ...nor a visible escape (⟦U+E0041⟧): half of one reads as something else.
  const open = text.lastIndexOf('⟦', end - 1);
  if (open !== -1 && text.lastIndexOf('⟧', end - 1) < open) end = open;
  return `${text.slice(0, end)}…`;
}

export function shortHash(hash: string): string {
  return clean(hash, 64).slice(0, 12);
}

/** Records are written from diffListings' findings (changes-repo), so they have its shape. */
function recordOf(row: HeadlineFields): Partial<InterpretationRecord> {
  return row.record as Partial<InterpretationRecord>;
}

const NOTIFICATION_KINDS: ReadonlySet<string> = new Set([
  'silent_change',
  'no_change_notification',
]);

/** What a headline reads of a finding, stored (a FindingRow) or fresh from a diff. */
export type HeadlineFields = Pick<
  FindingRow,
  'tool' | 'field' | 'kind' | 'before' | 'after' | 'record'
>;

/** A short statement of one finding, for subjects and change headings (the catalogue's). */
export function headline(row: HeadlineFields): string {
  const tool = clean(row.tool ?? '', ALERT_LIMITS.headlineTool);
  const field = row.field === null ? null : clean(row.field, ALERT_LIMITS.headlineTool);
  const record = recordOf(row);
  const entry = kindEntry(row.kind);
  if (entry === undefined) return `${tool}: ${clean(row.kind, ALERT_LIMITS.headlineTool)}`;
  const content = record.content ?? null;
  return clean(
    entry.headline({
      tool,
      field,
      before: row.before ?? undefined,
      after: row.after ?? undefined,
      renamedFrom:
        record.renamedFrom == null ? null : clean(record.renamedFrom, ALERT_LIMITS.headlineTool),
      content:
        content === null
          ? null
          : {
              hidden: content.hidden,
              families: content.families,
              target: content.target,
              location: content.location,
            },
    }),
  );
}

/**
 * An alert's one line: the headline of its worst finding, as its email subject and Slack
 * message say it, so the console's outbox reads the same as what was sent.
 */
export function alertHeadline(rows: readonly FindingRow[]): string {
  const worst = worstFinding(rows);
  return worst === undefined ? 'the listing changed' : headline(worst);
}

/** The worst finding, preferring one about a tool: it says more than "no notification". */
function worstFinding<Row extends HeadlineRow>(rows: readonly Row[]): Row | undefined {
  const pick = (candidates: readonly Row[]) =>
    candidates.reduce<Row | undefined>(
      (best, row) =>
        best === undefined || compareSeverity(row.severity, best.severity) > 0 ? row : best,
      undefined,
    );
  return pick(rows.filter((row) => row.tool !== null)) ?? pick(rows);
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '(absent)';
  if (typeof value === 'string') return `"${clean(value)}"`;
  return clean(JSON.stringify(value) ?? String(value));
}

function contentValues(content: ContentRecord | undefined): FindingView['values'] {
  if (content === undefined) return null;
  const values = [{ label: 'text', value: `"${clean(content.excerpt)}"` }];
  if (content.hidden !== null) values.push({ label: 'hidden', value: clean(content.hidden) });
  return values;
}

function findingView(row: FindingRow): FindingView {
  const shows = kindEntry(row.kind)?.values ?? 'none';
  return {
    severity: row.severity,
    text: clean(row.explanation),
    values:
      shows === 'values'
        ? [
            { label: 'before', value: valueText(row.before) },
            { label: 'after', value: valueText(row.after) },
          ]
        : shows === 'text'
          ? contentValues(recordOf(row).content ?? undefined)
          : null,
  };
}

function bySeverity(rows: readonly FindingRow[]): FindingRow[] {
  // Array.prototype.sort is stable: equal severities keep the diff's order.
  return [...rows].sort((a, b) => compareSeverity(b.severity, a.severity));
}

interface ToolGroup {
  tool: string;
  rows: FindingRow[];
  worst: Severity;
}

interface PreparedChange {
  entry: AlertChange;
  listing: FindingRow[];
  /** Worst tool first, so that what a cut leaves out is the least dangerous. */
  groups: ToolGroup[];
  /** Findings the tool cap leaves showable, the most this change can use of the budget. */
  showable: number;
}

function prepare(entry: AlertChange): PreparedChange {
  const byTool = new Map<string, FindingRow[]>();
  for (const row of entry.findings) {
    if (row.tool === null) continue;
    const rows = byTool.get(row.tool);
    if (rows === undefined) byTool.set(row.tool, [row]);
    else rows.push(row);
  }
  const groups = [...byTool]
    .map(([tool, rows]) => {
      const sorted = bySeverity(rows);
      return { tool, rows: sorted, worst: sorted[0]!.severity };
    })
    .sort((a, b) => compareSeverity(b.worst, a.worst));
  const listing = bySeverity(entry.findings.filter((row) => row.tool === null));
  const showable =
    listing.length +
    groups.slice(0, ALERT_LIMITS.toolsPerChange).reduce((sum, group) => sum + group.rows.length, 0);
  return { entry, listing, groups, showable };
}

/**
 * Splits `total` among changes wanting `wants[i]` findings: equal shares, and what a small
 * change leaves over goes to the others. One change with hundreds of findings must not
 * crowd out a later change of the same digest.
 */
function shareBudget(wants: readonly number[], total: number): number[] {
  const given = wants.map(() => 0);
  let left = total;
  let open = wants.flatMap((want, index) => (want > 0 ? [index] : []));
  while (left > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    for (const index of open) {
      const give = Math.min(share, wants[index]! - given[index]!, left);
      given[index]! += give;
      left -= give;
    }
    open = open.filter((index) => given[index]! < wants[index]!);
  }
  return given;
}

function objectOr(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? clean(value, 64) : null;
}

function booleanOr(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

function staleView(entry: AlertChange): StaleView {
  const { change } = entry;
  const exposure = objectOr(change.exposure);
  const old = objectOr(exposure['oldListing']);
  const first = stringOr(old['firstObserved']);
  const last = stringOr(old['lastObserved']);
  const heldBy =
    change.fromHash === null
      ? `this is the first listing seen of this server (${shortHash(change.toHash)}): host sessions that listed it already hold this text`
      : first !== null && last !== null
        ? `host sessions that listed between ${first} and ${last} (old listing ${shortHash(change.fromHash)})`
        : `host sessions that listed the old listing (${shortHash(change.fromHash)}); when it was first and last seen is not recorded`;

  const seen = change.notificationSeen ?? booleanOr(exposure['notificationSeen']);
  const advertised = booleanOr(exposure['listChangedAdvertised']);
  const notification =
    seen === true
      ? 'sent and observed: hosts that re-list on it have the new values'
      : seen === false && advertised === false
        ? 'none: the server does not advertise tools.listChanged, so hosts learn of the change only when they reconnect'
        : seen === false
          ? 'none observed, though the server advertises tools.listChanged: long-lived sessions keep the old values until they reconnect'
          : 'unknown: no held session was watching the server when the change was seen';

  const ttlMs = exposure['ttlMs'];
  const scope = stringOr(exposure['cacheScope']);
  const ttl =
    typeof ttlMs === 'number'
      ? `list results may be cached for up to ${ttlMs} ms${scope === null ? '' : ` (cache scope ${scope})`}; hosts that honour it re-list within that time`
      : 'none: the server sets no cache lifetime for its list, so only a notification or a reconnect replaces the old values';
  return { heldBy, notification, ttl };
}

function changeView(prepared: PreparedChange, budget: number): ChangeView {
  const { entry, listing, groups } = prepared;
  let left = budget;
  const listingShown = listing.slice(0, left);
  left -= listingShown.length;
  const tools: ToolView[] = [];
  for (const group of groups.slice(0, ALERT_LIMITS.toolsPerChange)) {
    if (left === 0) break;
    const rows = group.rows.slice(0, left);
    left -= rows.length;
    const record = recordOf(rows[0]!);
    tools.push({
      name: clean(group.tool),
      renamedFrom: record.renamedFrom == null ? null : clean(record.renamedFrom),
      worst: group.worst,
      findings: rows.map(findingView),
      hints: record.hints ?? null,
    });
  }
  return {
    id: entry.change.id,
    severity: entry.change.severity,
    detectedAt: entry.change.detectedAt.toISOString(),
    fromHash: entry.change.fromHash === null ? null : clean(entry.change.fromHash, 64),
    toHash: clean(entry.change.toHash, 64),
    headline: alertHeadline(entry.findings),
    listingFindings: listingShown.map(findingView),
    tools,
    omittedFindings: entry.findings.length - (budget - left),
    omittedTools: groups.length - tools.length,
    stale: staleView(entry),
  };
}

/** Whether hosts were left to find out on their own (the subject says so). */
function notNotified(entry: {
  change: Pick<ChangeRow, 'notificationSeen' | 'exposure'>;
  findings: readonly Pick<FindingRow, 'kind'>[];
}): boolean {
  return (
    entry.change.notificationSeen === false ||
    objectOr(entry.change.exposure)['notificationSeen'] === false ||
    entry.findings.some((row) => NOTIFICATION_KINDS.has(row.kind))
  );
}

/** What an alert's subject adds when hosts were not told of a change. */
export const NO_NOTIFICATION = ' (no change notification)';

/**
 * One change in one line, as an alert's subject names it ("CRITICAL search: purge_tenant now
 * claims read-only (no change notification)"): serve's log line of a recorded change.
 */
export function changeHeadline(
  server: string,
  change: Pick<ChangeRow, 'severity' | 'notificationSeen' | 'exposure'>,
  findings: readonly HeadlineRow[],
): string {
  const worst = worstFinding(findings);
  return (
    `${change.severity.toUpperCase()} ${clean(server, 64)}: ` +
    `${worst === undefined ? 'the listing changed' : headline(worst)}` +
    (notNotified({ change, findings }) ? NO_NOTIFICATION : '')
  );
}

function severityCounts(rows: readonly FindingRow[]): string {
  return SEVERITIES.map((severity) => ({
    severity,
    count: rows.filter((row) => row.severity === severity).length,
  }))
    .filter(({ count }) => count > 0)
    .map(({ severity, count }) => `${count} ${severity}`)
    .join(', ');
}

/**
 * The latest change's drift since the approved baseline (recorded with it), when it is
 * graded higher than the alert itself: the approved listing is further away than the
 * previous one, and the steps add up to more than any one of them.
 */
function sinceApprovalView(
  server: string,
  change: Pick<ChangeRow, 'severity' | 'sinceBaseline'>,
  severity: ChangeSeverity,
): SinceApprovalView | null {
  const since = change.sinceBaseline;
  if (since === null || compareSeverity(since.severity, severity) <= 0) return null;
  const baseline = shortHash(since.baselineHash);
  const command = `mcp-drift baseline diff ${server}`;
  return {
    severity: since.severity,
    findings: since.findings,
    baseline,
    command,
    text: `since the approved baseline ${baseline}, the listing has drifted by ${since.findings} finding${since.findings === 1 ? '' : 's'} graded ${since.severity.toUpperCase()} as one change, higher than this alert's ${severity.toUpperCase()}`,
  };
}

/** Everything the message says, cleaned and cut, for the text and HTML parts alike. */
export function buildAlertView(input: AlertMessageInput): AlertView {
  const all = input.changes;
  const first = all[0];
  const last = all.at(-1);
  if (first === undefined || last === undefined) {
    throw new DriftError('INTERNAL', 'renderAlert: an alert needs at least one change');
  }
  const server = clean(input.server.name, 64);
  const rows = all.flatMap((entry) => entry.findings);
  const severity = maxSeverity([
    ...all.map((entry) => entry.change.severity),
    ...rows.map((row) => row.severity),
  ]);
  const worst = worstFinding(rows);

  const detailed = all.slice(0, ALERT_LIMITS.changesPerMessage).map(prepare);
  const budgets = shareBudget(
    detailed.map((change) => change.showable),
    ALERT_LIMITS.findings,
  );
  const changes = detailed.map((change, index) => changeView(change, budgets[index] ?? 0));
  const omittedChanges = all.length - changes.length;

  return {
    server,
    sinceApproval: sinceApprovalView(server, last.change, severity),
    trust: { level: input.server.trust, implication: trustImplication(input.server.trust) },
    severity,
    headline: alertHeadline(rows),
    worst: worst === undefined ? null : clean(worst.explanation),
    notNotified: all.some(notNotified),
    totalChanges: all.length,
    totalFindings: rows.length,
    counts: severityCounts(rows),
    firstDetected: first.change.detectedAt.toISOString(),
    lastDetected: last.change.detectedAt.toISOString(),
    changes,
    omittedChanges,
    // A change without findings changes nothing a host gates on: the `info` advice fits.
    control: controlFor(severity === 'none' ? 'info' : severity).text,
    commands: {
      show: changes.map((change) => `mcp-drift change show ${change.id}`),
      ack: `mcp-drift alerts ack ${input.alertId}`,
      approve: `mcp-drift baseline approve ${server} --listing ${clean(last.change.toHash, 64)}`,
      more: omittedChanges > 0 ? `mcp-drift changes --server ${server}` : null,
    },
  };
}
