import { inArray } from 'drizzle-orm';
import { changes } from '../db/schema.js';
import { recentObservations } from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { expectPositionals, parseCommandArgs, positiveInteger } from './args.js';
import { short } from './check-command.js';
import type { CommandContext } from './context.js';
import { formatTable, printJson, printLine } from './output.js';

/** `mcp-drift history NAME`: the server's observations, newest first, with the changes they revealed. */
export async function historyCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('history', argv, {
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [name] = expectPositionals('history', positionals, ['NAME']);
  const limit = values.limit === undefined ? 50 : positiveInteger('--limit', values.limit);
  const { server, observations, changeRows } = await ctx.withDatabase(async (db) => {
    const server = await getServer(db, name!);
    const observations = await recentObservations(db, server.id, limit);
    const ids = observations.map((observation) => observation.id);
    const changeRows =
      ids.length === 0
        ? []
        : await db.select().from(changes).where(inArray(changes.observationId, ids));
    return { server, observations, changeRows };
  });
  const changeByObservation = new Map(changeRows.map((change) => [change.observationId, change]));
  const rows = observations.map((observation) => {
    const change = changeByObservation.get(observation.id);
    return {
      id: observation.id,
      startedAt: observation.startedAt.toISOString(),
      trigger: observation.trigger,
      outcome: observation.outcome,
      durationMs: observation.durationMs,
      listingHash: observation.listingHash,
      protocolVersion: observation.protocolVersion,
      error:
        observation.outcome === 'error'
          ? { code: observation.errorCode, message: observation.errorMessage }
          : null,
      change: change
        ? { id: change.id, severity: change.severity, fromHash: change.fromHash }
        : null,
    };
  });
  if (values.json) return printJson({ server: server.name, observations: rows });
  if (rows.length === 0)
    return printLine(
      `no observations of ${server.name} yet; run \`mcp-drift check ${server.name}\``,
    );
  printLine(
    formatTable(
      ['WHEN', 'HOW', 'OUTCOME', 'MS', 'LISTING', 'CHANGE', 'ERROR'],
      rows.map((row) => [
        row.startedAt,
        row.trigger,
        row.outcome,
        String(row.durationMs),
        row.listingHash ? short(row.listingHash) : '-',
        row.change ? `#${row.change.id} ${row.change.severity}` : '',
        row.error?.message ?? '',
      ]),
    ),
  );
}
