import type { FindingRow } from '../db/schema.js';
import type { Finding } from '../diff/index.js';

// Its own file, with type imports only: changes-repo writes these rows and is read by
// commands (`server list`) that must not load the diff engine alert-view brings.

/** What a headline reads of a finding: a stored row, or one just found (findingRowOf). */
export type HeadlineRow = Pick<
  FindingRow,
  'tool' | 'kind' | 'severity' | 'field' | 'before' | 'after' | 'record'
>;

/** A finding of diffListings as its stored row reads: what appendChange writes, and a preview shows. */
export function findingRowOf(finding: Finding): HeadlineRow {
  return {
    tool: finding.tool,
    kind: finding.kind,
    severity: finding.severity,
    field: finding.field ?? null,
    before: finding.before ?? null,
    after: finding.after ?? null,
    record: finding.record as unknown as Record<string, unknown>,
  };
}
