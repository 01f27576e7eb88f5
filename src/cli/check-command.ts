import { otherServersTools } from '../changes/changes-repo.js';
import { observeServer } from '../changes/observe-server.js';
import type { Database } from '../db/client.js';
import type { ServerRow } from '../db/schema.js';
import { diffListings, formatFindingsText, type DiffResult } from '../diff/index.js';
import { DriftError } from '../errors.js';
import {
  getBaseline,
  loadListingTools,
  serverVersionOf,
  type BaselineRow,
  type ObservationRow,
} from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { expectPositionals, parseCommandArgs } from './args.js';
import type { CommandContext } from './context.js';
import { findingJson } from './diff-command.js';
import { printJson, printLine } from './output.js';
import { enforceFailOn, parseSeverity } from './severity-flags.js';

/**
 * `mcp-drift check NAME`: list the server now, store the observation (and any change since
 * its previous listing), and diff against the approved baseline. The first successful
 * listing becomes the baseline.
 */
export async function checkCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('check', argv, {
    'fail-on': { type: 'string' },
    json: { type: 'boolean' },
  });
  const [name] = expectPositionals('check', positionals, ['NAME']);
  const failOn = parseSeverity('--fail-on', values['fail-on']);
  const outcome = await ctx.withDatabase(async (db) => {
    const server = await getServer(db, name!);
    const recorded = await observeServer(db, server, {
      config: ctx.config,
      env: ctx.env,
      trigger: 'manual',
      signal: ctx.signal,
    });
    if (ctx.signal.aborted) {
      throw new DriftError(
        'INTERRUPTED',
        `check ${server.name} interrupted; the server was closed`,
      );
    }
    ctx.logger.info(
      {
        server: server.name,
        outcome: recorded.observation.outcome,
        durationMs: recorded.observation.durationMs,
      },
      'checked',
    );
    if (!recorded.listing) return { server, recorded, baseline: undefined, diff: undefined };
    const baseline = (await getBaseline(db, server.id))!;
    // A first listing is its own baseline: what it says is what its content checks found.
    const diff =
      recorded.change?.row.fromHash === null
        ? recorded.change.diff
        : await againstBaseline(db, baseline, recorded.listing.tools, server, recorded.observation);
    return { server, recorded, baseline, diff };
  });
  const { server, recorded, baseline, diff } = outcome;
  const observation = recorded.observation;
  if (!recorded.listing || !baseline || !diff) {
    throw new DriftError(
      (observation.errorCode as DriftError['code'] | null) ?? 'REMOTE_PROTOCOL',
      `check ${server.name}: ${observation.errorMessage} (recorded as observation ${observation.id})`,
    );
  }
  const baselineCreated =
    recorded.previousHash === null && baseline.listingHash === recorded.listing.hash;
  if (values.json) {
    printJson({
      server: server.name,
      observation: {
        id: observation.id,
        startedAt: observation.startedAt.toISOString(),
        durationMs: observation.durationMs,
        protocolVersion: observation.protocolVersion,
        serverInfo: observation.serverInfo,
        pages: observation.pages,
        listingHash: observation.listingHash,
        toolCount: recorded.listing.tools.length,
      },
      baseline: {
        hash: baseline.listingHash,
        approvedBy: baseline.approvedBy,
        approvedAt: baseline.approvedAt.toISOString(),
        created: baselineCreated,
      },
      change: recorded.change
        ? {
            id: recorded.change.row.id,
            severity: recorded.change.row.severity,
            fromHash: recorded.change.row.fromHash,
          }
        : null,
      severity: diff.severity,
      findings: diff.findings.map(findingJson),
    });
  } else {
    const info = observation.serverInfo as { name?: string; version?: string } | null;
    printLine(
      `${server.name}: ${recorded.listing.tools.length} tools in ${observation.pages} page(s), ` +
        `${observation.protocolVersion}${info?.name ? `, ${info.name} ${info.version ?? ''}`.trimEnd() : ''}, ` +
        `${observation.durationMs} ms; listing ${short(recorded.listing.hash)}`,
    );
    if (baselineCreated) printLine('This is the first listing: it is now the baseline.');
    else
      printLine(
        `Baseline: ${short(baseline.listingHash)} (${baseline.approvedBy}, ${baseline.approvedAt.toISOString()})`,
      );
    if (recorded.change) {
      printLine(
        `Recorded change ${recorded.change.row.id} (${recorded.change.row.severity}) from the previous listing ${short(recorded.change.row.fromHash)}.`,
      );
    }
    printLine();
    process.stdout.write(formatFindingsText(diff));
  }
  enforceFailOn(diff.severity, failOn);
}

async function againstBaseline(
  db: Database,
  baseline: BaselineRow,
  tools: Parameters<typeof diffListings>[1],
  server: ServerRow,
  observation: ObservationRow,
): Promise<DiffResult> {
  const version = observation.serverInfo?.['version'];
  return diffListings(await loadListingTools(db, baseline.listingHash), tools, {
    trust: server.trust,
    server: server.name,
    otherServerTools: await otherServersTools(db, server.id),
    before: { serverVersion: await serverVersionOf(db, server.id, baseline.listingHash) },
    after: { serverVersion: typeof version === 'string' ? version : null },
  });
}

export function short(hash: string | null): string {
  return hash === null ? '(none)' : hash.slice(0, 12);
}
