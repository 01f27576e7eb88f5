import { changeFeed, showChange } from '../changes/change-views.js';
import { kindOf, severityOf, timeOf } from '../console/params.js';
import { formatFindingsText, sanitizeForTerminal, type Finding } from '../diff/index.js';
import type { DeclaredHint } from '../diff/hints.js';
import { movedSurfacesText, surfaceCountsText } from '../listings/surface-text.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { limitFlag, positiveInteger } from './flags.js';
import { formatTable, printJson, printLine, printText, short } from './output.js';

/**
 * `mcp-drift changes [--server NAME] [--severity LEVEL] [--since WHEN] [--kind KIND]`:
 * recorded changes, newest first, through the console's feed and its filter parsing, so
 * that a filter means the same in the terminal as on the changes page.
 */
export async function changesCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as {
    server?: string;
    severity?: string;
    since?: string;
    kind?: string;
    limit?: string;
    json?: boolean;
  };
  const problems = new Problems();
  const limit = limitFlag(problems, opts.limit);
  const minSeverity = problems.check(() => severityOf('--severity', opts.severity));
  const since = problems.check(() => timeOf('--since', opts.since, new Date()));
  const kind = problems.check(() => kindOf(opts.kind, '--kind'));
  problems.throwIfAny();
  const ctx = await run.context();
  const feed = await ctx.withDatabase((db) =>
    changeFeed(db, { server: opts.server, minSeverity, since, kind, limit }),
  );
  if (opts.json) return printJson({ changes: feed.changes });
  if (feed.changes.length === 0) {
    const filtered = [opts.server, opts.severity, opts.since, opts.kind].some(
      (value) => value !== undefined,
    );
    return printLine(filtered ? 'no changes match these filters' : 'no changes recorded');
  }
  printLine(
    formatTable(
      ['ID', 'SERVER', 'DETECTED', 'SEVERITY', 'LISTING', 'NOTIFIED', 'HEADLINE'],
      feed.changes.map((row) => [
        String(row.id),
        row.server,
        row.detectedAt,
        row.severity,
        `${short(row.fromHash)} -> ${short(row.toHash)}`,
        row.notificationSeen === null ? '-' : row.notificationSeen ? 'yes' : 'no',
        row.headline
          ? `${row.headline.tool ?? '(whole listing)'}: ${row.headline.kind}${row.findings > 1 ? ` (+${row.findings - 1} more)` : ''}`
          : '-',
      ]),
    ),
  );
}

/**
 * `mcp-drift change show ID [--details]`: one change, what its findings share (the server's
 * trust posture, the stale-session exposure) once, and each finding's own record with
 * `--details`. Printed per finding, the shared sentences made four findings 60 lines.
 */
export async function changeShowCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as { json?: boolean; details?: boolean };
  const problems = new Problems();
  const id = positiveInteger(problems, 'ID', run.args[0]!);
  problems.throwIfAny();
  const ctx = await run.context();
  const detail = await ctx.withDatabase((db) => showChange(db, id));
  if (opts.json) return printJson(detail);
  const { change, findings } = detail;
  printLine(
    `change ${change.id} of ${change.server}, ${change.detectedAt}: severity ${change.severity}`,
  );
  printLine(`listing ${change.fromHash ?? '(none: the first listing)'} -> ${change.toHash}`);
  const { before, after } = change.listings;
  if (before !== null && after !== null) {
    printLine(
      `surfaces moved: ${change.surfaces.length === 0 ? 'none' : movedSurfacesText(change.surfaces)}`,
    );
    printLine(`before: ${surfaceCountsText(before)}`);
  }
  if (after !== null)
    printLine(`${before === null ? 'listing' : 'after'}: ${surfaceCountsText(after)}`);
  printLine(
    `change notification: ${change.notificationSeen === null ? 'no held session' : change.notificationSeen ? 'seen' : 'not seen'}`,
  );
  printLine();
  printText(formatFindingsText({ severity: change.severity, findings }));
  const shared = sharedRecordLines(findings);
  if (shared.length > 0) {
    printLine();
    printLine(shared.map(sanitizeForTerminal).join('\n'));
  }
  if (opts.details) {
    for (const finding of findings) {
      printLine();
      printLine(recordText(finding));
    }
  }
  printLine();
  if (!opts.details && findings.length > 0) {
    printLine(`each finding's record: mcp-drift change show ${change.id} --details`);
  }
  printLine(`approve: mcp-drift baseline approve ${change.server} --listing ${change.toHash}`);
}

/**
 * What the findings of one change have in common, each distinct value once: the trust
 * posture is the server's and the exposure the change's, so they are almost always one.
 */
function sharedRecordLines(findings: Finding[]): string[] {
  const distinct = (values: string[]) => [...new Set(values)];
  return [
    ...distinct(
      findings.map(({ record }) => `trust: ${record.trust.level}: ${record.trust.implication}`),
    ),
    ...distinct(findings.map(({ record }) => `stale sessions: ${record.staleSessions.exposure}`)),
  ];
}

/** A finding's own interpretation record (docs/design.md §5), as indented lines. */
function recordText(finding: Finding): string {
  const { record } = finding;
  const lines = [
    `${finding.tool ?? '(whole listing)'}: ${finding.kind}${finding.field ? ` ${finding.field}` : ''} (${finding.severity})`,
    `  ${finding.explanation}`,
  ];
  if (record.renamedFrom) lines.push(`  renamed from: ${record.renamedFrom}`);
  if (record.hints) {
    for (const [hint, values] of Object.entries(record.hints)) {
      lines.push(
        `  ${hint}: declared ${declared(values.declaredBefore)} -> ${declared(values.declaredAfter)}, effective ${effective(values.effectiveBefore)} -> ${effective(values.effectiveAfter)}`,
      );
    }
  }
  lines.push(`  effect: ${record.effect}`, `  control: ${record.control.text}`);
  if (record.severity.escalations.length > 0) {
    lines.push(
      `  severity: ${record.severity.base}, escalated: ${record.severity.escalations.join('; ')}`,
    );
  }
  return lines.map(sanitizeForTerminal).join('\n');
}

function declared(value: DeclaredHint | null): string {
  if (value === null) return '(no tool)';
  if (typeof value === 'object') return `invalid ${JSON.stringify(value.invalid)}`;
  return String(value);
}

function effective(value: boolean | null): string {
  return value === null ? '(no tool)' : String(value);
}
