import { previewApproval, type ApprovalPreview } from '../changes/approval-preview.js';
import {
  approveBaseline,
  requireLatestListing,
  showBaseline,
  type Approver,
} from '../changes/baseline.js';
import { driftSinceBaseline } from '../changes/baseline-drift.js';
import { formatFindingsText } from '../diff/index.js';
import { DriftError } from '../errors.js';
import { getServer } from '../registry/servers-repo.js';
import type { CommandRun } from './command-run.js';
import { confirm, requireConfirmable } from './confirmation.js';
import { formatTable, printJson, printLine, printText, short } from './output.js';

export async function baselineShowCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const ctx = await run.context();
  const baseline = await ctx.withDatabase((db) => showBaseline(db, name));
  if (run.opts.json) return printJson(baseline);
  printLine(
    `${baseline.server}: baseline ${short(baseline.hash)} (${
      baseline.approvedBy === 'operator'
        ? `approved by ${approverText(baseline.approver)}`
        : 'the first listing seen'
    }, ${baseline.approvedAt}), ${baseline.tools.length} tools`,
  );
  printLine(
    formatTable(
      ['TOOL', 'READ-ONLY', 'DESTRUCTIVE', 'IDEMPOTENT', 'OPEN-WORLD'],
      baseline.tools.map((tool) => {
        const hints = (tool['annotations'] ?? {}) as Record<string, unknown>;
        const shown = (key: string) => (key in hints ? JSON.stringify(hints[key]) : '-');
        return [
          tool.name,
          shown('readOnlyHint'),
          shown('destructiveHint'),
          shown('idempotentHint'),
          shown('openWorldHint'),
        ];
      }),
    ),
  );
}

/** `baseline diff NAME`: everything between the approved listing and the latest, as one change. */
export async function baselineDiffCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const ctx = await run.context();
  const drift = await ctx.withDatabase((db) => driftSinceBaseline(db, name));
  if (run.opts.json) return printJson(drift);
  const { baseline, latest } = drift;
  printLine(
    `${drift.server}: baseline ${short(baseline.hash)} (${
      baseline.approvedBy === 'operator'
        ? `approved by ${approverText(baseline.approver)}`
        : 'the first listing seen'
    }, ${baseline.approvedAt}) → latest listing ${latest.hash} (seen ${latest.firstObserved ?? '?'} to ${latest.lastObserved ?? '?'})`,
  );
  if (drift.atBaseline) {
    printLine('The latest listing is the baseline: nothing has drifted. Severity: none.');
    return;
  }
  printLine(`Graded as one change: ${drift.severity.toUpperCase()}`);
  printText(formatFindingsText(drift));
}

export async function baselineApproveCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const opts = run.opts as {
    listing?: string;
    hash?: string;
    json?: boolean;
    yes?: boolean;
    ackAlerts?: boolean;
  };
  if (opts.hash !== undefined && opts.listing !== undefined) {
    throw new DriftError(
      'USAGE',
      'baseline approve: give --hash (the latest listing, as reviewed) or --listing (an earlier one), not both',
    );
  }
  requireConfirmable('baseline approve', opts.yes);
  const ctx = await run.context();
  const { preview, approved } = await ctx.withDatabase(async (db) => {
    // With --hash, a listing other than the one reviewed is refused before anything is shown.
    const listing =
      opts.hash === undefined
        ? opts.listing
        : await requireLatestListing(db, await getServer(db, name), opts.hash);
    const preview = await previewApproval(db, name, { listing });
    if (!opts.json) printApprovalPreview(preview, opts.ackAlerts === true);
    await confirm(
      `Approve ${short(preview.candidate.hash)} as the baseline of ${preview.server}?`,
      {
        yes: opts.yes,
        signal: ctx.signal,
      },
    );
    // The whole hash shown, not the latest again: a listing seen while the prompt waited
    // is not what the operator read.
    const approved = await approveBaseline(db, preview.server, {
      listing: preview.candidate.hash,
      exact: true,
      ...(opts.hash === undefined ? {} : { latest: preview.candidate.hash }),
      actor: ctx.actor,
      acknowledgeAlerts: opts.ackAlerts === true,
    });
    return { preview, approved };
  });
  (await ctx.logger()).info(
    { server: approved.server, listing: approved.hash, acknowledged: approved.acknowledged },
    'baseline approved',
  );
  if (opts.json) return printJson({ preview, approved });
  printLine(
    `${approved.server}: baseline is now ${approved.hash} (approved by ${approverText(approved.approver)}, ${approved.approvedAt})`,
  );
  if (approved.acknowledged.length > 0) {
    printLine(`acknowledged ${alertList(approved.acknowledged)}`);
  }
}

function approverText(approver: Approver | null): string {
  return approver ? `${approver.name} via ${approver.via}` : 'an operator';
}

function alertList(ids: readonly number[]): string {
  return `${ids.length === 1 ? 'alert' : 'alerts'} ${ids.map((id) => `#${id}`).join(', ')}`;
}

/** What the prompt asks about: the baseline replaced, the listing taken, what it accepts. */
function printApprovalPreview(preview: ApprovalPreview, ackAlerts: boolean): void {
  const { previous, candidate } = preview;
  printLine(`${preview.server}: approve listing ${short(candidate.hash)} as the baseline`);
  printLine(
    `  previous baseline: ${
      previous
        ? `${short(previous.hash)} (${previous.tools} tools), ${
            previous.approvedBy === 'operator'
              ? `approved by ${approverText(previous.approver)}`
              : 'the first listing seen'
          }, ${previous.approvedAt}`
        : 'none'
    }`,
  );
  printLine(
    `  listing to approve: ${short(candidate.hash)} (${candidate.tools} tools), seen ${candidate.firstObserved ?? '?'} to ${candidate.lastObserved ?? '?'}`,
  );
  if (preview.alreadyBaseline) {
    printLine('  it is the baseline already: approving accepts nothing new');
  } else if (preview.findings.length === 0) {
    printLine('  accepts no findings: nothing a host reads differs from the baseline');
  } else {
    const n = preview.findings.length;
    printLine(
      `  accepts ${n} finding${n === 1 ? '' : 's'} (severity ${preview.severity}) against the previous baseline:`,
    );
    printLine(
      formatTable(
        ['SEVERITY', 'FINDING'],
        preview.findings.map((finding) => [finding.severity.toUpperCase(), finding.headline]),
      )
        .split('\n')
        .map((line) => `    ${line}`)
        .join('\n'),
    );
  }
  if (preview.openAlerts.length > 0) {
    printLine(
      `  open alerts of changes up to this listing: ${preview.openAlerts.map((id) => `#${id}`).join(', ')} (${
        ackAlerts ? 'acknowledged with the approval' : 'left open; --ack-alerts acknowledges them'
      })`,
    );
  }
}
