import { CONTENT_KINDS, type FindingKind } from '../diff/catalogue.js';
import { severityAtLeast, type Severity } from '../diff/severity.js';
import { canonicalTool, type RawTool } from '../listings/canonical.js';
import type { GatewayPolicy, RefusalReason } from '../vocabulary/gateway-policies.js';

/** The parts of a finding the policy reads. */
export interface PolicyFinding {
  tool: string | null;
  kind: FindingKind;
  severity: Severity;
}

export interface PolicyInput {
  /** The approved baseline's tools (or the lockfile's): what the host is served. */
  approved: readonly RawTool[];
  /** What the upstream server lists now. */
  current: readonly RawTool[];
  /** The diff of approved → current. */
  findings: readonly PolicyFinding[];
  policy: GatewayPolicy;
  /** The pending change that holds the difference, named in refusals; null without one. */
  changeId: string | null;
}

/**
 * Per tool, what the host sees and what happens to its calls (docs/gateway.md, Policies):
 * - `serve`: the approved definition is listed and calls are forwarded;
 * - `refuse`: the approved definition is listed and calls are refused until approval;
 * - `withhold`: not listed (an added tool, or a changed one under `quarantine`);
 * - `remove`: gone upstream, so not listed either.
 */
export type ToolRule =
  | { name: string; action: 'serve'; definition: RawTool; changed: boolean }
  | { name: string; action: 'refuse'; definition: RawTool; reason: RefusalReason }
  | { name: string; action: 'withhold'; reason: 'added' | 'changed' }
  | { name: string; action: 'remove' };

export type { RefusalReason };

export interface GatewayRules {
  /** By tool name, approved tools first (in approved order), then added ones. */
  rules: ToolRule[];
  changeId: string | null;
}

/** The tools listed to the host, in the approved order. */
export function servedTools(rules: GatewayRules): RawTool[] {
  const tools: RawTool[] = [];
  for (const rule of rules.rules) {
    if (rule.action === 'serve' || rule.action === 'refuse') tools.push(rule.definition);
  }
  return tools;
}

export function ruleFor(rules: GatewayRules, name: string): ToolRule | undefined {
  return rules.rules.find((rule) => rule.name === name);
}

/**
 * Under `pin` a changed tool keeps serving its approved definition; a call still reaches
 * the new code, so it is refused when the change relaxes a hint (the host would skip a
 * confirmation the approved hints asked for) or carries text that attacks the model.
 */
function refusalReason(findings: readonly PolicyFinding[]): RefusalReason | null {
  if (findings.some((f) => f.kind === 'annotation_relaxed')) return 'relaxation';
  if (findings.some((f) => CONTENT_KINDS.has(f.kind) && severityAtLeast(f.severity, 'high'))) {
    return 'content';
  }
  return null;
}

export function decideTools(input: PolicyInput): GatewayRules {
  const current = new Map(input.current.map((tool) => [tool.name, tool]));
  const approvedNames = new Set(input.approved.map((tool) => tool.name));
  const rules: ToolRule[] = [];
  for (const approved of input.approved) {
    const now = current.get(approved.name);
    if (now === undefined) {
      rules.push({ name: approved.name, action: 'remove' });
      continue;
    }
    if (canonicalTool(now) === canonicalTool(approved)) {
      rules.push({ name: approved.name, action: 'serve', definition: approved, changed: false });
      continue;
    }
    if (input.policy === 'quarantine') {
      rules.push({ name: approved.name, action: 'withhold', reason: 'changed' });
      continue;
    }
    const reason = refusalReason(input.findings.filter((f) => f.tool === approved.name));
    rules.push(
      reason === null
        ? { name: approved.name, action: 'serve', definition: approved, changed: true }
        : { name: approved.name, action: 'refuse', definition: approved, reason },
    );
  }
  for (const tool of input.current) {
    if (!approvedNames.has(tool.name)) {
      rules.push({ name: tool.name, action: 'withhold', reason: 'added' });
    }
  }
  return { rules, changeId: input.changeId };
}
