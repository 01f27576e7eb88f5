import { kindEntry } from './catalogue.js';
import { groupFindingsByTool } from './group-findings.js';
import { SEVERITIES, type ChangeSeverity, type Severity } from './severity.js';
import type { Finding } from './types.js';
import { sanitizeForTerminal } from '../text/terminal-text.js';

const VALUE_WIDTH = 32;

function valueText(value: unknown): string {
  const clean = sanitizeForTerminal(JSON.stringify(value) ?? String(value));
  return clean.length > VALUE_WIDTH ? `${clean.slice(0, VALUE_WIDTH - 1)}…` : clean;
}

function changeText(finding: Finding): string {
  // Content findings quote the text found (its excerpt, already made visible).
  if (kindEntry(finding.kind)?.values === 'text') {
    return valueText(finding.record.content?.excerpt ?? '');
  }
  const hasBefore = 'before' in finding;
  const hasAfter = 'after' in finding;
  if (!hasBefore && !hasAfter) return '';
  const side = (present: boolean, value: unknown) => (present ? valueText(value) : '(absent)');
  return `${side(hasBefore, finding.before)} → ${side(hasAfter, finding.after)}`;
}

const LISTING_GROUP = '(whole listing)';

/**
 * The human rendering of a diff: findings grouped by tool, worst tool first (the whole-listing
 * findings lead among equals), one aligned row per finding, and a summary line.
 */
export function formatFindingsText(result: {
  severity: ChangeSeverity;
  findings: readonly Finding[];
}): string {
  if (result.findings.length === 0) return 'No changes. Severity: none.\n';

  const ordered = groupFindingsByTool(result.findings);

  const header = ['SEVERITY', 'KIND', 'FIELD', 'CHANGE', 'EXPLANATION'];
  const rows = ordered.map((group) =>
    group.findings.map((f) => [
      f.severity,
      f.kind,
      sanitizeForTerminal(f.field ?? ''),
      changeText(f),
      sanitizeForTerminal(f.explanation),
    ]),
  );
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.flat().map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    `  ${cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd();

  const out: string[] = [line(header)];
  ordered.forEach((group, index) => {
    const title = group.tool === null ? LISTING_GROUP : sanitizeForTerminal(group.tool);
    out.push('', `${title} (${group.worst})`);
    for (const row of rows[index] ?? []) out.push(line(row));
  });

  const counts = new Map<Severity, number>();
  for (const f of result.findings) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
  const bySeverity = SEVERITIES.filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${s}`)
    .join(', ');
  const tools = ordered.filter((g) => g.tool !== null).length;
  const n = result.findings.length;
  out.push(
    '',
    `Severity: ${result.severity}. ${n} finding${n === 1 ? '' : 's'} on ${tools} tool${tools === 1 ? '' : 's'} (${bySeverity}).`,
  );
  return out.join('\n') + '\n';
}
