import path from 'node:path';
import {
  sanitizeForTerminal,
  terminalSafeJson,
  terminalSafeOutput,
} from '../text/terminal-text.js';
import { cliStreams } from './streams.js';

let documentPrinted = false;

/**
 * stdout carries data only; logs go to stderr. `--json` prints one document: once a
 * command has printed its own, a failure adds none (run-cli.ts).
 */
export function printJson(value: unknown): void {
  documentPrinted = true;
  cliStreams().stdout.write(terminalSafeJson(`${JSON.stringify(value, null, 2)}\n`));
}

export function jsonDocumentPrinted(): boolean {
  return documentPrinted;
}

/** A new invocation has printed nothing yet (several run in one process in tests). */
export function resetJsonDocument(): void {
  documentPrinted = false;
}

/** Text output goes out through here only (see terminalSafeOutput). */
export function printText(text: string): void {
  cliStreams().stdout.write(terminalSafeOutput(text));
}

export function printLine(text = ''): void {
  printText(`${text}\n`);
}

/** Warnings go to stderr, so that stdout stays the command's data (its --json document). */
export function printWarnings(warnings: { message: string }[]): void {
  for (const { message } of warnings) {
    cliStreams().stderr.write(terminalSafeOutput(`mcp-drift: warning: ${message}\n`));
  }
}

/** A listing hash as a person reads it; `--json` carries it whole. */
export function short(hash: string | null): string {
  if (hash === null) return '(none)';
  return hash.slice(0, 12);
}

/** A left-aligned table with a header row; cells are sanitized. */
export function formatTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows].map((row) => row.map(sanitizeForTerminal));
  // A loop, not Math.max(...cells): spreading 200,000 rows overflows the stack.
  const widths = header.map(() => 0);
  for (const row of all) {
    for (const [column, cell] of row.entries()) {
      if (column < widths.length) widths[column] = Math.max(widths[column]!, cell.length);
    }
  }
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A file as SARIF names it: relative to where the command ran (the repository root in CI). */
export function fileUri(file: string): string {
  const relative = path.relative(process.cwd(), file);
  const shown = relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  return shown.split(path.sep).join('/');
}
