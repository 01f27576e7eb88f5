import { DriftError } from '../errors.js';
import {
  canonicalListing,
  toolsInNameOrder,
  type CanonicalListing,
  type RawTool,
} from '../listings/canonical.js';
import { addedToolDrafts, compareTool, type Draft } from './compare-tool.js';
import { postureText, type Wording } from './explain.js';
import {
  FLIP_FLOP_THRESHOLD,
  parseTime,
  postureChangeCounts,
  type TimedListing,
} from './flip-flop.js';
import { HINTS, readPosture, type HintName, type Posture } from './hints.js';
import { buildRecord, hintRecords, recordScope, type RecordScope } from './record.js';
import { matchRenames } from './rename.js';
import { changeSeverity, compareSeverity, escalate, type Severity } from './severity.js';
import {
  FINDING_KINDS,
  type DiffContext,
  type DiffResult,
  type Finding,
  type HintRecord,
} from './types.js';

/** Raw tools, or a listing already canonicalized (to hash once and diff many times). */
export type ListingInput = readonly RawTool[] | CanonicalListing;

function toCanonical(listing: ListingInput): CanonicalListing {
  return Array.isArray(listing) ? canonicalListing(listing) : (listing as CanonicalListing);
}

const SILENT_ESCALATION = 'it arrived in a silent change';

/** The drafts of one tool, with what its records share. */
interface ToolDrafts {
  tool: string;
  renamedFrom: string | null;
  drafts: Draft[];
  hints: Record<HintName, HintRecord>;
  /** Raises relaxations on this tool (description or inputSchema changed with them). */
  escalation: string | null;
}

/**
 * Diffs two listings (design §3-§4). Identical canonical listings give no findings and
 * severity `none`, whatever the context. Findings about the change as a whole (silent_change,
 * no_change_notification) have `tool: null` and come first; the rest are ordered by tool
 * name, then severity, worst first.
 */
export function diffListings(
  beforeListing: ListingInput,
  afterListing: ListingInput,
  context: DiffContext = {},
): DiffResult {
  const before = toCanonical(beforeListing);
  const after = toCanonical(afterListing);
  const hashes = { beforeHash: before.hash, afterHash: after.hash };
  if (before.hash === after.hash) {
    return { severity: 'none', findings: [], changed: false, ...hashes };
  }

  const changed: ToolDrafts[] = [];
  const postureChanged: string[] = [];
  const addedTools: RawTool[] = [];
  const removedTools: RawTool[] = [];

  // Both sides are sorted by name, each tool's hash at its index: one merge pass pairs
  // them, no lookups by name needed.
  const { tools: beforeTools, hashes: beforeHashes } = toolsInNameOrder(before);
  const { tools: afterTools, hashes: afterHashes } = toolsInNameOrder(after);
  let i = 0;
  let j = 0;
  while (i < beforeTools.length || j < afterTools.length) {
    const old = beforeTools[i];
    const current = afterTools[j];
    // Most tools are in both: test that first, `===` being cheaper than ordering.
    if (old !== undefined && current !== undefined && old.name === current.name) {
      if (beforeHashes[i] !== afterHashes[j]) {
        const comparison = compareTool(current.name, old, current);
        if (comparison.postureChanged) postureChanged.push(current.name);
        changed.push(toolDrafts(current.name, null, comparison));
      }
      i++;
      j++;
    } else if (current === undefined || (old !== undefined && old.name < current.name)) {
      removedTools.push(old!);
      i++;
    } else {
      addedTools.push(current);
      j++;
    }
  }
  const { renames, removed, added } = matchRenames(removedTools, addedTools);

  for (const { before: old, after: renamed } of renames) {
    const comparison = compareTool(renamed.name, old, renamed);
    const entry = toolDrafts(renamed.name, old.name, comparison);
    entry.drafts.unshift({
      kind: 'tool_renamed',
      base: 'low',
      before: old.name,
      after: renamed.name,
      wording: {
        summary: `${old.name} was renamed to ${renamed.name}, keeping its input schema and description`,
        effect: `its annotations are compared with those of ${old.name}, so a rename cannot hide a relaxation`,
      },
    });
    changed.push(entry);
  }
  for (const tool of removed) {
    const posture = readPosture(tool);
    changed.push({
      tool: tool.name,
      renamedFrom: null,
      hints: hintRecords(posture, null),
      escalation: null,
      drafts: [
        {
          kind: 'tool_removed',
          base: 'low',
          wording: {
            summary: `${tool.name} was removed`,
            effect:
              'sessions that listed earlier still offer it to the model, and calls to it will fail',
          },
        },
      ],
    });
  }
  for (const tool of added) {
    const { drafts, after: posture } = addedToolDrafts(tool.name, tool);
    drafts.unshift({
      kind: 'tool_added',
      base: 'low',
      wording: {
        summary: `${tool.name} is a new tool (effectively ${postureText(posture)})`,
        effect: 'hosts see it only once they list again',
      },
    });
    changed.push({
      tool: tool.name,
      renamedFrom: null,
      hints: hintRecords(null, posture),
      escalation: null,
      drafts,
    });
  }

  addFlipFlops(changed, postureChanged, before, after, context);

  const scope = recordScope(context, before.hash, after.hash);
  const silent =
    context.delivery !== undefined &&
    context.delivery.listChangedAdvertised &&
    !context.delivery.notificationSeen;
  const findings: Finding[] = changeLevelFindings(scope, context);
  for (const entry of changed) {
    for (const d of entry.drafts) {
      const escalations: string[] = [];
      if (d.kind === 'annotation_relaxed') {
        if (entry.escalation !== null) escalations.push(entry.escalation);
        if (silent) escalations.push(SILENT_ESCALATION);
      }
      findings.push(finding(scope, entry.tool, entry.renamedFrom, entry.hints, d, escalations));
    }
  }
  findings.sort(compareFindings);
  return { severity: changeSeverity(findings), findings, changed: true, ...hashes };
}

function toolDrafts(
  tool: string,
  renamedFrom: string | null,
  comparison: { drafts: Draft[]; before: Posture; after: Posture; escalation: string | null },
): ToolDrafts {
  return {
    tool,
    renamedFrom,
    drafts: comparison.drafts,
    hints: hintRecords(comparison.before, comparison.after),
    escalation: comparison.escalation,
  };
}

function addFlipFlops(
  changed: ToolDrafts[],
  postureChanged: readonly string[],
  before: CanonicalListing,
  after: CanonicalListing,
  context: DiffContext,
): void {
  if (context.history === undefined || postureChanged.length === 0) return;
  if (context.now === undefined) {
    throw new DriftError(
      'INTERNAL',
      'diffListings: `history` needs `now`, the time of the new listing',
    );
  }
  const now = parseTime(context.now, 'now');
  const timeline: TimedListing[] = context.history.map((listing, index) => ({
    at: parseTime(listing.observedAt, `history[${index}].observedAt`),
    byName: new Map(listing.tools.map((tool) => [tool.name, tool])),
  }));
  // `before` normally closes the history already (then it adds no transition). When it does
  // not, it was seen after the last history entry and no later than now.
  const lastAt = timeline.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
  const firstSeen = context.before?.firstObserved;
  const seenAt =
    firstSeen === undefined || firstSeen === null
      ? lastAt
      : parseTime(firstSeen, 'before.firstObserved');
  const beforeAt = Math.min(now, Math.max(lastAt, seenAt));
  timeline.push({ at: beforeAt, byName: new Map(before.tools.map((tool) => [tool.name, tool])) });
  timeline.push({ at: now, byName: new Map(after.tools.map((tool) => [tool.name, tool])) });

  const counts = postureChangeCounts(postureChanged, timeline, now);
  for (const entry of changed) {
    const count = counts.get(entry.tool);
    if (count === undefined || count < FLIP_FLOP_THRESHOLD) continue;
    entry.drafts.push({
      kind: 'flip_flop',
      base: 'high',
      after: count,
      wording: {
        summary: `${entry.tool}'s effective posture changed ${count} times within 24 h`,
        effect:
          'hints that keep changing cannot be relied on, and each host session holds whichever values it listed',
      },
    });
  }
}

function changeLevelFindings(scope: RecordScope, context: DiffContext): Finding[] {
  const delivery = context.delivery;
  if (delivery === undefined || delivery.notificationSeen) return [];
  const draft: Draft = delivery.listChangedAdvertised
    ? {
        kind: 'silent_change',
        base: 'high',
        wording: {
          summary:
            'The listing changed but no change notification reached the held session, though the server advertises tools.listChanged',
          effect: 'long-lived host sessions keep gating on the old values until they reconnect',
        },
      }
    : {
        kind: 'no_change_notification',
        base: 'medium',
        wording: {
          summary: 'The listing changed and the server does not advertise tools.listChanged',
          effect: 'hosts learn of the change only when they reconnect',
        },
      };
  return [finding(scope, null, null, null, draft, [])];
}

function explanation(
  wording: Wording,
  base: Severity,
  severity: Severity,
  escalations: readonly string[],
): string {
  const sentence = `${wording.summary}: ${wording.effect}`;
  if (escalations.length === 0) return sentence;
  const reasons = escalations.join('; ');
  return severity === base
    ? `${sentence} (${reasons})`
    : `${sentence} (raised from ${base}: ${reasons})`;
}

function finding(
  scope: RecordScope,
  tool: string | null,
  renamedFrom: string | null,
  hints: Record<HintName, HintRecord> | null,
  draft: Draft,
  escalations: readonly string[],
): Finding {
  const severity = escalations.reduce<Severity>((level) => escalate(level), draft.base);
  // Keys in the order of the --json contract (design §7); absent before/after stay absent.
  return {
    tool,
    kind: draft.kind,
    severity,
    ...(draft.field !== undefined ? { field: draft.field } : {}),
    ...('before' in draft ? { before: draft.before } : {}),
    ...('after' in draft ? { after: draft.after } : {}),
    explanation: explanation(draft.wording, draft.base, severity, escalations),
    record: buildRecord(scope, {
      tool,
      renamedFrom,
      hints,
      effect: draft.wording.effect,
      base: draft.base,
      severity,
      escalations,
    }),
  };
}

const KIND_ORDER = new Map(FINDING_KINDS.map((kind, index) => [kind, index]));

function compareFindings(a: Finding, b: Finding): number {
  if (a.tool !== b.tool) {
    if (a.tool === null) return -1;
    if (b.tool === null) return 1;
    return a.tool < b.tool ? -1 : 1;
  }
  return (
    compareSeverity(b.severity, a.severity) ||
    (KIND_ORDER.get(a.kind) ?? 0) - (KIND_ORDER.get(b.kind) ?? 0) ||
    compareFields(a.field, b.field)
  );
}

/** Hints in the design's order (readOnlyHint first), then other fields by code units. */
function compareFields(a: string | undefined, b: string | undefined): number {
  const rank = (field: string | undefined) => {
    const index = (HINTS as readonly (string | undefined)[]).indexOf(field);
    return index === -1 ? HINTS.length : index;
  };
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
