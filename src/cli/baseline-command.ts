import { DriftError } from '../errors.js';
import {
  getBaseline,
  loadListingTools,
  latestOkObservation,
  resolveListingHash,
  setBaseline,
} from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';
import { expectPositionals, parseCommandArgs } from './args.js';
import { short } from './check-command.js';
import type { CommandContext } from './context.js';
import { formatTable, printJson, printLine } from './output.js';

export async function baselineCommand(ctx: CommandContext, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'show') return show(ctx, rest);
  if (sub === 'approve') return approve(ctx, rest);
  throw new DriftError(
    'USAGE',
    `baseline: ${sub === undefined ? 'missing subcommand' : `unknown subcommand "${sub}"`}; use show NAME or approve NAME [--listing HASH]`,
  );
}

async function show(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('baseline show', argv, {
    json: { type: 'boolean' },
  });
  const [name] = expectPositionals('baseline show', positionals, ['NAME']);
  const { server, baseline, tools } = await ctx.withDatabase(async (db) => {
    const server = await getServer(db, name!);
    const baseline = await getBaseline(db, server.id);
    return {
      server,
      baseline,
      tools: baseline ? await loadListingTools(db, baseline.listingHash) : [],
    };
  });
  if (!baseline) {
    throw new DriftError(
      'NOT_FOUND',
      `${server.name} has no baseline yet; \`mcp-drift check ${server.name}\` sets one`,
    );
  }
  if (values.json) {
    return printJson({
      server: server.name,
      hash: baseline.listingHash,
      approvedBy: baseline.approvedBy,
      approvedAt: baseline.approvedAt.toISOString(),
      tools,
    });
  }
  printLine(
    `${server.name}: baseline ${short(baseline.listingHash)} (${baseline.approvedBy}, ${baseline.approvedAt.toISOString()}), ${tools.length} tools`,
  );
  printLine(
    formatTable(
      ['TOOL', 'READ-ONLY', 'DESTRUCTIVE', 'IDEMPOTENT', 'OPEN-WORLD'],
      tools.map((tool) => {
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

async function approve(ctx: CommandContext, argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('baseline approve', argv, {
    listing: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [name] = expectPositionals('baseline approve', positionals, ['NAME']);
  const approved = await ctx.withDatabase(async (db) => {
    const server = await getServer(db, name!);
    let hash: string;
    if (values.listing !== undefined) {
      hash = await resolveListingHash(db, server.id, values.listing);
    } else {
      const latest = await latestOkObservation(db, server.id);
      if (!latest) {
        throw new DriftError(
          'NOT_FOUND',
          `${server.name} has no successful listing yet; run \`mcp-drift check ${server.name}\``,
        );
      }
      hash = latest.listingHash!;
    }
    return { server, row: (await setBaseline(db, server.id, hash, 'operator'))! };
  });
  ctx.logger.info(
    { server: approved.server.name, listing: approved.row.listingHash },
    'baseline approved',
  );
  if (values.json) {
    return printJson({
      server: approved.server.name,
      hash: approved.row.listingHash,
      approvedAt: approved.row.approvedAt.toISOString(),
    });
  }
  printLine(`${approved.server.name}: baseline is now ${short(approved.row.listingHash)}`);
}
