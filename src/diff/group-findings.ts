import { compareSeverity, type Severity } from './severity.js';
import type { Finding } from './types.js';

export interface FindingGroup<F extends Finding = Finding> {
  /** null: findings about the whole listing (a silent change). */
  tool: string | null;
  worst: Severity;
  /** Worst first. */
  findings: F[];
}

/**
 * Findings grouped by tool, worst tool first; among equals the whole-listing findings lead,
 * then tools by name (the order `check` prints). Pure.
 */
export function groupFindingsByTool<F extends Finding>(findings: readonly F[]): FindingGroup<F>[] {
  const groups = new Map<string | null, F[]>();
  for (const finding of findings) {
    const group = groups.get(finding.tool);
    if (group) group.push(finding);
    else groups.set(finding.tool, [finding]);
  }
  return [...groups.entries()]
    .map(([tool, members]) => {
      const sorted = [...members].sort((a, b) => compareSeverity(b.severity, a.severity));
      return { tool, worst: sorted[0]!.severity, findings: sorted };
    })
    .sort(
      (a, b) =>
        compareSeverity(b.worst, a.worst) ||
        (a.tool === null
          ? -1
          : b.tool === null
            ? 1
            : a.tool < b.tool
              ? -1
              : a.tool > b.tool
                ? 1
                : 0),
    );
}
