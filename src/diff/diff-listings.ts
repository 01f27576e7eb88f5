import { DriftError } from '../errors.js';
import {
  canonicalListing,
  extrasOf,
  toolsInNameOrder,
  type CanonicalListing,
  type Extras,
  type RawTool,
} from '../listings/canonical.js';
import type { Presentation } from '../listings/presentation.js';
import { compareTool, type Draft, type ToolCheckOptions } from './compare-tool.js';
import { surfaceDrafts } from './surfaces.js';
import { clientDependenceDraft } from './client-dependence.js';
import { CONTENT_KINDS, FINDING_KINDS, baseSeverity } from './catalogue.js';
import { postureText, type Wording } from './explain.js';
import {
  FLIP_FLOP_THRESHOLD,
  parseTime,
  postureChangeCounts,
  type TimedListing,
} from './flip-flop.js';
import { HINTS, annotationsOf, readPosture, type HintName, type Posture } from './hints.js';
import { buildRecord, hintRecords, recordScope, type RecordScope } from './record.js';
import { matchRenames } from './rename.js';
import { changeSeverity, compareSeverity, escalate, type Severity } from './severity.js';
import { lookupIn, skeletonLookupIn } from './shadowing.js';
import { toolTexts } from './text-fields.js';
import type { DiffContext, DiffResult, Finding, HintRecord } from './types.js';
import { visibleText } from '../text/visible-text.js';

/**
 * Raw tools, a whole presentation, or a listing already canonicalized (to hash once and
 * diff many times).
 */
export type ListingInput = readonly RawTool[] | Presentation | CanonicalListing;

function toCanonical(listing: ListingInput): CanonicalListing {
  if (Array.isArray(listing)) return canonicalListing(listing);
  if ('hash' in listing) return listing as CanonicalListing;
  const presentation = listing as Presentation;
  return canonicalListing(presentation.tools, extrasOf(presentation));
}

/**
 * A listing's extras, with the instructions a caller passed in the context when the
 * listing itself has none (the context was their only way in before surfaces).
 */
function extrasWith(listing: CanonicalListing, instructions: string | null | undefined): Extras {
  if (listing.extras.instructions !== null || typeof instructions !== 'string') {
    return listing.extras;
  }
  return { ...listing.extras, instructions };
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

/** The tool checks' view of the rest of the diff (compare-tool.ts, ToolCheckOptions). */
function checkOptions(
  before: CanonicalListing | null,
  after: CanonicalListing,
  context: DiffContext,
  adoption: boolean,
): ToolCheckOptions {
  let seen: Set<string> | null = null;
  let names: Set<string> | null = null;
  const others = context.otherServerTools ?? new Map<string, string>();
  return {
    content:
      context.contentChecks === false
        ? null
        : {
            // Read only by a text that directs the use of a tool, which is rare.
            get serverTools() {
              return (names ??= new Set(after.tools.map((tool) => tool.name)));
            },
            server: context.server ?? null,
            otherServerTool: lookupIn(others),
            hasOtherServers: others.size > 0,
            otherServerToolBySkeleton: skeletonLookupIn(others),
          },
    // Built only when a text has a finding, which is rare: most diffs never pay for it.
    seenBefore: (text) => {
      if (before === null) return false;
      seen ??= new Set(before.tools.flatMap((tool) => toolTexts(tool).map((entry) => entry.text)));
      return seen.has(text);
    },
    adoption,
  };
}

/** Hints declared at all: an object with at least one of the four hint keys. */
function declaresHints(tool: RawTool): boolean {
  const annotations = annotationsOf(tool);
  return HINTS.some((hint) => Object.hasOwn(annotations, hint));
}

/**
 * A vendor adopting annotations (docs/design.md §4): most of the tools on both sides go from
 * declaring no hint to declaring some in this one release.
 */
function isAdoption(pairs: ReadonlyArray<readonly [RawTool, RawTool]>, common: number): boolean {
  let adopted = 0;
  for (const [old, current] of pairs) {
    if (!declaresHints(old) && declaresHints(current)) adopted++;
  }
  // One tool of a one-tool server is most of it; elsewhere one tool alone is not adoption.
  return adopted >= Math.min(2, common) && adopted > 0 && adopted * 2 > common;
}

/**
 * Diffs two listings (docs/design.md §3-§4). Identical canonical listings give no findings and
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
  const pairs: Array<readonly [RawTool, RawTool]> = [];
  let common = 0;

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
      if (beforeHashes[i] !== afterHashes[j]) pairs.push([old, current]);
      common++;
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
  const options = checkOptions(before, after, context, isAdoption(pairs, common));

  for (const [old, current] of pairs) {
    const comparison = compareTool(current.name, old, current, options);
    if (comparison.postureChanged) postureChanged.push(current.name);
    changed.push(toolDrafts(current.name, null, comparison));
  }
  for (const { before: old, after: renamed, exact } of renames) {
    const comparison = compareTool(renamed.name, old, renamed, options);
    const entry = toolDrafts(renamed.name, old.name, comparison);
    entry.drafts.unshift({
      kind: 'tool_renamed',
      base: baseSeverity('tool_renamed'),
      before: old.name,
      after: renamed.name,
      wording: {
        summary: exact
          ? `${old.name} was renamed to ${renamed.name}, keeping its input schema and description`
          : `${old.name} was renamed to ${renamed.name}, with a near-identical input schema and description`,
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
          base: baseSeverity('tool_removed'),
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
    const { drafts, after: posture } = compareTool(tool.name, null, tool, options);
    drafts.unshift({
      kind: 'tool_added',
      base: baseSeverity('tool_added'),
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
  findings.push(...clientDependence(scope, after, context));
  findings.push(
    ...surfaceFindings(
      scope,
      extrasWith(before, context.before?.instructions),
      extrasWith(after, context.after?.instructions),
      checkOptions(before, after, context, false),
    ),
  );
  for (const entry of changed) {
    const injection = injectionEscalations(entry.drafts);
    for (const d of entry.drafts) {
      const escalations: string[] = [];
      if (d.kind === 'annotation_relaxed') {
        // A vendor adopting annotations rewrites its metadata in the same release.
        if (entry.escalation !== null && !d.adoptionDeclaration) escalations.push(entry.escalation);
        if (silent) escalations.push(SILENT_ESCALATION);
      }
      if (d.kind === 'instruction_injection') escalations.push(...injection);
      findings.push(finding(scope, entry.tool, entry.renamedFrom, entry.hints, d, escalations));
    }
  }
  findings.sort(compareFindings);
  return { severity: changeSeverity(findings), findings, changed: true, ...hashes };
}

/**
 * Content findings on a server's first listing ("poison on first sight", docs/design.md §4): the
 * content checks of every tool, as if each were added, and nothing else. A first listing
 * otherwise only becomes the baseline; with no content finding this returns none.
 */
export function checkFirstListing(listing: ListingInput, context: DiffContext = {}): DiffResult {
  const after = toCanonical(listing);
  const options = checkOptions(null, after, context, false);
  const scope = recordScope(context, null, after.hash);
  const findings: Finding[] = surfaceFindings(
    scope,
    null,
    extrasWith(after, context.after?.instructions),
    options,
  );
  findings.push(...clientDependence(scope, after, context));
  for (const tool of after.tools) {
    const { drafts, after: posture } = compareTool(tool.name, null, tool, options);
    const content = drafts.filter((d) => CONTENT_KINDS.has(d.kind));
    const injection = injectionEscalations(content);
    for (const d of content) {
      const escalations = d.kind === 'instruction_injection' ? injection : [];
      findings.push(finding(scope, tool.name, null, hintRecords(null, posture), d, escalations));
    }
  }
  findings.sort(compareFindings);
  return {
    severity: changeSeverity(findings),
    findings,
    changed: findings.length > 0,
    beforeHash: null,
    afterHash: after.hash,
  };
}

/**
 * instruction_injection is critical when families combine on one tool (secrets and
 * concealment, exfiltration and an override...) or when the tool relaxes a hint in the
 * same change (docs/design.md §4).
 */
function injectionEscalations(drafts: readonly Draft[]): string[] {
  const families = new Set(
    drafts.flatMap((d) => (d.kind === 'instruction_injection' ? (d.content?.families ?? []) : [])),
  );
  if (families.size === 0) return [];
  const out: string[] = [];
  if (families.size >= 2) out.push(`it combines ${[...families].join(' and ')} on one tool`);
  if (drafts.some((d) => d.kind === 'annotation_relaxed')) {
    out.push('the same tool relaxes a hint in this change');
  }
  return out;
}

/**
 * Findings of the surfaces other than tools (surfaces.ts): instructions with `tool: null`,
 * an item's with its subject (`prompt:NAME`...) as `tool`.
 */
function surfaceFindings(
  scope: RecordScope,
  before: Extras | null,
  after: Extras,
  options: ToolCheckOptions,
): Finding[] {
  return surfaceDrafts(before, after, options).flatMap(({ subject, drafts }) => {
    const injection = injectionEscalations(drafts);
    return drafts.map((d) =>
      finding(scope, subject, null, null, d, d.kind === 'instruction_injection' ? injection : []),
    );
  });
}

function toolDrafts(
  tool: string,
  renamedFrom: string | null,
  comparison: {
    drafts: Draft[];
    before: Posture | null;
    after: Posture;
    escalation: string | null;
  },
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
      base: baseSeverity('flip_flop'),
      after: count,
      wording: {
        summary: `${entry.tool}'s effective posture changed ${count} times within 24 h`,
        effect:
          'hints that keep changing cannot be relied on, and each host session holds whichever values it listed',
      },
    });
  }
}

function clientDependence(
  scope: RecordScope,
  after: CanonicalListing,
  context: DiffContext,
): Finding[] {
  const draft = clientDependenceDraft(after, context.clientListings ?? []);
  return draft ? [finding(scope, null, null, null, draft, [])] : [];
}

function changeLevelFindings(scope: RecordScope, context: DiffContext): Finding[] {
  const found: Finding[] = [];
  const delivery = context.delivery;
  const version = context.before?.serverVersion;
  if (typeof version === 'string' && version === context.after?.serverVersion) {
    found.push(
      finding(
        scope,
        null,
        null,
        null,
        {
          kind: 'unversioned_change',
          base: baseSeverity('unversioned_change'),
          before: version,
          after: version,
          wording: {
            summary: `The listing changed while serverInfo.version stayed ${JSON.stringify(version)}`,
            effect:
              'a release normally bumps the version, so hosts and pinning tools that key on it do not see this change',
          },
        },
        [],
      ),
    );
  }
  if (delivery === undefined || delivery.notificationSeen) return found;
  const draft: Draft = delivery.listChangedAdvertised
    ? {
        kind: 'silent_change',
        base: baseSeverity('silent_change'),
        wording: {
          summary:
            'The listing changed but no change notification reached the held session, though the server advertises tools.listChanged',
          effect: 'long-lived host sessions keep gating on the old values until they reconnect',
        },
      }
    : {
        kind: 'no_change_notification',
        base: baseSeverity('no_change_notification'),
        wording: {
          summary: 'The listing changed and the server does not advertise tools.listChanged',
          effect: 'hosts learn of the change only when they reconnect',
        },
      };
  return [finding(scope, null, null, null, draft, []), ...found];
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
  // Keys in the order of the --json contract (docs/design.md §7); absent before/after stay absent.
  return {
    tool,
    kind: draft.kind,
    severity,
    ...(draft.field !== undefined ? { field: draft.field } : {}),
    ...('before' in draft ? { before: draft.before } : {}),
    ...('after' in draft ? { after: draft.after } : {}),
    // Server text inside the explanation is shown with invisible characters made visible:
    // it is what a person reads (terminal, --json, email).
    explanation: visibleText(explanation(draft.wording, draft.base, severity, escalations)),
    record: buildRecord(scope, {
      tool,
      renamedFrom,
      hints,
      effect: visibleText(draft.wording.effect),
      base: draft.base,
      basis: draft.basis ?? null,
      severity,
      escalations,
      content: draft.content ?? null,
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
