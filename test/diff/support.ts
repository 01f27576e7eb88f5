import type { DiffResult, Finding } from '../../src/diff/index.js';

/** The identifying part of a finding, for exact comparisons of a whole diff. */
export function brief(finding: Finding) {
  return {
    tool: finding.tool,
    kind: finding.kind,
    severity: finding.severity,
    ...(finding.field !== undefined ? { field: finding.field } : {}),
  };
}

export function briefs(result: DiffResult) {
  return result.findings.map(brief);
}

export function only(result: DiffResult, kind: Finding['kind'], field?: string): Finding {
  const matches = result.findings.filter(
    (f) => f.kind === kind && (field === undefined || f.field === field),
  );
  if (matches.length !== 1) {
    throw new Error(`expected one ${kind} ${field ?? ''}, found ${matches.length}`);
  }
  return matches[0]!;
}
