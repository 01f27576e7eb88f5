import { compareSeverity, type ChangeSeverity, type Severity } from './severity.js';
import type { Finding } from './types.js';

/* eslint-disable no-control-regex -- matching control characters is the point here */
/** ESC-introduced sequences: CSI, OSC/DCS/SOS/PM/APC strings (to their terminator), 2-byte. */
const ESCAPE_SEQUENCES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][\s\S]*?(?:\x07|\x1b\\|$)|\x1b[\s\S]?|\x9b[0-?]*[ -/]*[@-~]|[\x9d\x90\x98\x9e\x9f][\s\S]*?(?:\x07|\x9c|$)/g;
/** Line breaks and tabs would break the table: they become spaces. */
const WHITESPACE_CONTROLS = /[\t\n\v\f\r\u2028\u2029]+/g;
/** What remains of C0, DEL and C1, and the bidirectional overrides that reorder text. */
const OTHER_CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/**
 * Makes server-supplied text safe to print on a terminal (design §9): escape sequences are
 * removed whole, line breaks become spaces, other control characters are dropped.
 */
export function sanitizeForTerminal(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCES, '')
    .replace(WHITESPACE_CONTROLS, ' ')
    .replace(OTHER_CONTROLS, '');
}

const VALUE_WIDTH = 32;

function valueText(value: unknown): string {
  const clean = sanitizeForTerminal(JSON.stringify(value) ?? String(value));
  return clean.length > VALUE_WIDTH ? `${clean.slice(0, VALUE_WIDTH - 1)}…` : clean;
}

function changeText(finding: Finding): string {
  const hasBefore = 'before' in finding;
  const hasAfter = 'after' in finding;
  if (!hasBefore && !hasAfter) return '';
  const side = (present: boolean, value: unknown) => (present ? valueText(value) : '(absent)');
  return `${side(hasBefore, finding.before)} → ${side(hasAfter, finding.after)}`;
}

const LISTING_GROUP = '(whole listing)';

function worst(findings: readonly Finding[]): Severity {
  return findings.reduce<Severity>(
    (acc, f) => (compareSeverity(f.severity, acc) > 0 ? f.severity : acc),
    'info',
  );
}

/**
 * The human rendering of a diff: findings grouped by tool, worst tool first (the whole-listing
 * findings lead among equals), one aligned row per finding, and a summary line.
 */
export function formatFindingsText(result: {
  severity: ChangeSeverity;
  findings: readonly Finding[];
}): string {
  if (result.findings.length === 0) return 'No changes. Severity: none.\n';

  const groups = new Map<string | null, Finding[]>();
  for (const finding of result.findings) {
    const group = groups.get(finding.tool);
    if (group === undefined) groups.set(finding.tool, [finding]);
    else group.push(finding);
  }
  const ordered = [...groups.entries()]
    .map(([tool, findings]) => ({
      tool,
      findings: [...findings].sort((a, b) => compareSeverity(b.severity, a.severity)),
      worst: worst(findings),
    }))
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
  const bySeverity = (['critical', 'high', 'medium', 'low', 'info'] as const)
    .filter((s) => counts.has(s))
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
