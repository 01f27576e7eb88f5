import { HINTS, declaredText, type DeclaredHint, type HintName } from '../diff/hints.js';
import type { ChangeSeverity, HintRecord } from '../diff/index.js';
import { canonicalize } from '../listings/canonical.js';
import { clean, type FindingView } from './alert-view.js';
import { markup, type SafeHtml } from './html-escape.js';

/** An invalid declared value is server text of any length; a table cell shows its start. */
const CELL_MAX = 40;
const ABSENT_TOOL = '—';

const HINT_HEADER = [
  'hint',
  'declared before',
  'declared after',
  'effective before',
  'effective after',
  '',
];

interface HintRow {
  cells: string[];
  /** The effective value moved: a host now gates differently. */
  effectiveChanged: boolean;
}

function declaredCell(declared: DeclaredHint | null): string {
  return declared === null ? ABSENT_TOOL : clean(declaredText(declared), CELL_MAX);
}

function effectiveCell(effective: boolean | null): string {
  return effective === null ? ABSENT_TOOL : String(effective);
}

function sameDeclared(a: DeclaredHint, b: DeclaredHint): boolean {
  return canonicalize(a) === canonicalize(b);
}

function hintRows(hints: Record<HintName, HintRecord>): HintRow[] {
  return HINTS.flatMap((hint) => {
    const record = hints[hint] as HintRecord | undefined;
    if (record === undefined) return [];
    // Both sides must exist for a value to have moved; an added or removed tool has one.
    const effectiveChanged =
      record.effectiveBefore !== null &&
      record.effectiveAfter !== null &&
      record.effectiveBefore !== record.effectiveAfter;
    const declaredChanged =
      record.declaredBefore !== null &&
      record.declaredAfter !== null &&
      !sameDeclared(record.declaredBefore, record.declaredAfter);
    const mark = effectiveChanged ? 'changed' : declaredChanged ? 're-declared' : '';
    return [
      {
        cells: [
          hint,
          declaredCell(record.declaredBefore),
          declaredCell(record.declaredAfter),
          effectiveCell(record.effectiveBefore),
          effectiveCell(record.effectiveAfter),
          mark,
        ],
        effectiveChanged,
      },
    ];
  });
}

/** Aligned columns for the text part, each line starting with `indent`. */
export function textTable(header: string[], rows: string[][], indent: string): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    `${indent}${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
  return [line(header), ...rows.map(line)];
}

export function hintTableText(hints: Record<HintName, HintRecord>, indent: string): string[] {
  return textTable(
    HINT_HEADER,
    hintRows(hints).map((row) => row.cells),
    indent,
  );
}

export function findingLinesText(findings: readonly FindingView[], indent: string): string[] {
  const width = Math.max(...findings.map((finding) => finding.severity.length));
  return findings.flatMap((finding) => {
    const label = finding.severity.toUpperCase().padEnd(width);
    const lines = [`${indent}${label}  ${finding.text}`];
    if (finding.values !== null) {
      const pad = `${indent}${' '.repeat(width)}  `;
      const labelWidth = Math.max(...finding.values.map((entry) => entry.label.length)) + 1;
      for (const { label: name, value } of finding.values) {
        lines.push(`${pad}${`${name}:`.padEnd(labelWidth)} ${value}`);
      }
    }
    return lines;
  });
}

const SEVERITY_COLOUR: Readonly<Record<ChangeSeverity, string>> = {
  critical: '#b00020',
  high: '#c0392b',
  medium: '#b9770e',
  low: '#2471a3',
  info: '#566573',
  none: '#566573',
};

const TABLE_STYLE = 'border-collapse:collapse;margin:4px 0 12px 0;font-size:13px';
const CELL_STYLE = 'border:1px solid #c8c8c8;padding:3px 8px;text-align:left;vertical-align:top';
const HEADER_STYLE = `${CELL_STYLE};background:#f2f2f2`;
const CHANGED_ROW_STYLE = 'background:#fdecea;font-weight:bold';

export function severityBadge(severity: ChangeSeverity): SafeHtml {
  return markup`<span style="color:${SEVERITY_COLOUR[severity]};font-weight:bold">${severity.toUpperCase()}</span>`;
}

function row(cells: readonly (string | SafeHtml)[], style: string | null = null): SafeHtml {
  const tds = cells.map((cell) => markup`<td style="${CELL_STYLE}">${cell}</td>`);
  return style === null ? markup`<tr>${tds}</tr>\n` : markup`<tr style="${style}">${tds}</tr>\n`;
}

function headerRow(titles: readonly string[]): SafeHtml {
  const ths = titles.map((title) => markup`<th style="${HEADER_STYLE}">${title}</th>`);
  return markup`<tr>${ths}</tr>\n`;
}

function table(rows: SafeHtml[]): SafeHtml {
  return markup`<table style="${TABLE_STYLE}">\n${rows}</table>\n`;
}

export function hintTableHtml(hints: Record<HintName, HintRecord>): SafeHtml {
  return table([
    headerRow(HINT_HEADER),
    ...hintRows(hints).map((hint) =>
      row(hint.cells, hint.effectiveChanged ? CHANGED_ROW_STYLE : null),
    ),
  ]);
}

const VALUE_STYLE = 'font-family:Menlo,Consolas,monospace;font-size:12px;word-break:break-all';

/** Labelled values under a finding's text: before/after, or the text found and what it hides. */
function valuesHtml(values: FindingView['values']): SafeHtml | string {
  if (values === null) return '';
  return values.map(
    ({ label, value }) =>
      markup`<br><em>${label}:</em> <span style="${VALUE_STYLE}">${value}</span>`,
  ) as unknown as SafeHtml;
}

export function findingsTableHtml(findings: readonly FindingView[]): SafeHtml {
  return table([
    headerRow(['severity', 'what changed']),
    ...findings.map((finding) =>
      row([severityBadge(finding.severity), markup`${finding.text}${valuesHtml(finding.values)}`]),
    ),
  ]);
}

/** Two columns, the first a heading: for summaries, stale sessions and commands. */
export function keyValueTableHtml(
  rows: ReadonlyArray<readonly [string, string | SafeHtml]>,
): SafeHtml {
  return table(
    rows.map(
      ([key, value]) =>
        markup`<tr><th style="${HEADER_STYLE}">${key}</th><td style="${CELL_STYLE}">${value}</td></tr>\n`,
    ),
  );
}
