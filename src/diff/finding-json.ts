import type { Finding } from './types.js';

/**
 * A finding as every `--json` document carries it (docs/design.md §7), with its interpretation
 * record (§5) so that it reads on its own: the same keys in the same order wherever it is
 * printed, and absent optional keys left out rather than null.
 */
export function findingJson(finding: Finding): Finding {
  return {
    tool: finding.tool,
    kind: finding.kind,
    severity: finding.severity,
    ...('field' in finding ? { field: finding.field } : {}),
    ...('before' in finding ? { before: finding.before } : {}),
    ...('after' in finding ? { after: finding.after } : {}),
    explanation: finding.explanation,
    record: finding.record,
  };
}
