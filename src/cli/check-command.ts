import { checkServer } from '../changes/check-server.js';
import { formatFindingsText } from '../diff/index.js';
import { surfaceCountsText } from '../listings/surface-text.js';
import { sanitizeForTerminal } from '../text/terminal-text.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { sarifLog } from '../diff/sarif.js';
import { enforceFailOn, formatFlag, severityFlag } from './flags.js';
import { printJson, printLine, printText, short } from './output.js';
import { Progress } from './progress.js';
import { packageVersion } from './version.js';

/** `mcp-drift check NAME`: see checkServer. */
export async function checkCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const opts = run.opts as { failOn?: string; format?: string; json?: boolean };
  const problems = new Problems();
  const failOn = severityFlag(problems, '--fail-on', opts.failOn);
  const format = formatFlag(problems, opts.format, opts.json);
  problems.throwIfAny();
  const ctx = await run.context();
  const logger = await ctx.logger();
  // A server that hangs takes up to the probe's time limit: say what is awaited meanwhile.
  const progress = new Progress();
  progress.start([name]);
  const report = await ctx
    .withDatabase((db) =>
      checkServer(db, name, {
        config: ctx.config,
        env: ctx.env,
        signal: ctx.signal,
        logger,
      }),
    )
    .finally(() => progress.stop());
  if (format === 'json') {
    printJson(report);
  } else if (format === 'sarif') {
    // A live server is in no file: the findings carry logical locations only.
    printJson(
      sarifLog({ findings: report.findings, locate: () => null, toolVersion: packageVersion() }),
    );
  } else {
    const { observation, baseline, change } = report;
    printLine(
      `${report.server}: ${surfaceCountsText(observation.surfaces)} in ${observation.pages} page(s), ` +
        `${sanitizeForTerminal(observation.protocolVersion ?? '')}${serverNamed(observation.serverInfo)}, ` +
        `${observation.durationMs} ms; listing ${short(observation.listingHash!)}`,
    );
    if (baseline.created) printLine('This is the first listing: it is now the baseline.');
    else
      printLine(
        `Baseline: ${short(baseline.hash)} (${baseline.approvedBy}, ${baseline.approvedAt})`,
      );
    if (change) {
      printLine(
        `Recorded change ${change.id} (${change.severity}) from the previous listing ${short(change.fromHash)}.`,
      );
    }
    printLine();
    printText(formatFindingsText(report));
  }
  enforceFailOn(report.severity, failOn);
}

/** `, NAME VERSION` as the server calls itself: its words, so sanitized; nothing when unnamed. */
function serverNamed(serverInfo: unknown): string {
  const info = serverInfo as { name?: unknown; version?: unknown } | null;
  if (typeof info?.name !== 'string' || info.name === '') return '';
  const version = typeof info.version === 'string' ? info.version : '';
  return `, ${sanitizeForTerminal(`${info.name} ${version}`.trimEnd())}`;
}
