import { getChange, listChanges, type FindingRow } from '../changes/changes-repo.js';
import { formatFindingsText, sanitizeForTerminal, type Finding } from '../diff/index.js';
import type { DeclaredHint } from '../diff/hints.js';
import type { InterpretationRecord } from '../diff/types.js';
import { DriftError } from '../errors.js';
import { getServer } from '../registry/servers-repo.js';
import { expectPositionals, parseCommandArgs, positiveInteger } from './args.js';
import { short } from './check-command.js';
import type { CommandContext } from './context.js';
import { findingJson } from './diff-command.js';
import { formatTable, printJson, printLine } from './output.js';

/** `mcp-drift changes [--server NAME]`: recorded changes, newest first. */
export async function changesCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('changes', argv, {
    server: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  expectPositionals('changes', positionals, []);
  const limit = values.limit === undefined ? 50 : positiveInteger('--limit', values.limit);
  const rows = await ctx.withDatabase(async (db) => {
    const serverId =
      values.server === undefined ? undefined : (await getServer(db, values.server)).id;
    return listChanges(db, { serverId, limit });
  });
  const view = rows.map((row) => ({
    id: row.id,
    server: row.server,
    detectedAt: row.detectedAt.toISOString(),
    severity: row.severity,
    fromHash: row.fromHash,
    toHash: row.toHash,
    notificationSeen: row.notificationSeen,
  }));
  if (values.json) return printJson({ changes: view });
  if (view.length === 0) return printLine('no changes recorded');
  printLine(
    formatTable(
      ['ID', 'SERVER', 'DETECTED', 'SEVERITY', 'LISTING', 'NOTIFIED'],
      view.map((row) => [
        String(row.id),
        row.server,
        row.detectedAt,
        row.severity,
        `${short(row.fromHash)} -> ${short(row.toHash)}`,
        row.notificationSeen === null ? '-' : row.notificationSeen ? 'yes' : 'no',
      ]),
    ),
  );
}

/** `mcp-drift change show ID`: one change with the full interpretation record of each finding. */
export async function changeCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'show') {
    throw new DriftError(
      'USAGE',
      `change: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}; use show ID`,
    );
  }
  const { values, positionals } = parseCommandArgs('change show', rest, {
    json: { type: 'boolean' },
  });
  const [idText] = expectPositionals('change show', positionals, ['ID']);
  const id = positiveInteger('ID', idText!);
  const { change, findings: rows } = await ctx.withDatabase((db) => getChange(db, id));
  const found = rows.map(findingOf);
  const summary = {
    id: change.id,
    server: change.server,
    detectedAt: change.detectedAt.toISOString(),
    severity: change.severity,
    fromHash: change.fromHash,
    toHash: change.toHash,
    observationId: change.observationId,
    notificationSeen: change.notificationSeen,
    exposure: change.exposure,
  };
  if (values.json) return printJson({ change: summary, findings: found.map(findingJson) });
  printLine(
    `change ${change.id} of ${change.server}, ${summary.detectedAt}: severity ${change.severity}`,
  );
  printLine(`listing ${change.fromHash ?? '(none: the first listing)'} -> ${change.toHash}`);
  printLine(
    `change notification: ${change.notificationSeen === null ? 'no held session' : change.notificationSeen ? 'seen' : 'not seen'}`,
  );
  printLine();
  process.stdout.write(formatFindingsText({ severity: change.severity, findings: found }));
  for (const finding of found) {
    printLine();
    printLine(recordText(finding));
  }
  printLine();
  printLine(`approve: mcp-drift baseline approve ${change.server} --listing ${change.toHash}`);
}

/** A stored finding as the diff produced it (absent before/after are stored as null). */
function findingOf(row: FindingRow): Finding {
  return {
    tool: row.tool,
    kind: row.kind as Finding['kind'],
    severity: row.severity,
    ...(row.field === null ? {} : { field: row.field }),
    ...(row.before === null ? {} : { before: row.before }),
    ...(row.after === null ? {} : { after: row.after }),
    explanation: row.explanation,
    record: row.record as unknown as InterpretationRecord,
  };
}

/** The interpretation record (design §5) of one finding, as indented lines. */
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
  lines.push(
    `  trust: ${record.trust.level}: ${record.trust.implication}`,
    `  effect: ${record.effect}`,
    `  stale sessions: ${record.staleSessions.exposure}`,
    `  control: ${record.control.text}`,
  );
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
