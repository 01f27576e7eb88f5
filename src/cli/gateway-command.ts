import type { ApprovedSource } from '../gateway/approved-source.js';
import { DriftError } from '../errors.js';
import type { CommandRun } from './command-run.js';
import type { CommandContext } from './context.js';
import { hostContextOf } from './host-context.js';
import type { ConnectSpec } from '../mcp/index.js';

/** `mcp-drift gateway NAME [--lock FILE]`: see docs/gateway.md. */
export async function gatewayCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const opts = run.opts as { lock?: string };
  const ctx = await run.context();
  const logger = await ctx.logger();
  const { connectSpecOf, probeOptionsOf } = await import('../changes/probe-spec.js');
  const { runStdioGateway } = await import('../gateway/stdio-gateway.js');
  const { baselineSource, lockfileSource } = await import('../gateway/approved-source.js');
  let spec: ConnectSpec;
  let source: ApprovedSource;
  if (opts.lock !== undefined) {
    spec = await lockedSpec(ctx, opts.lock, name);
    source = lockfileSource(opts.lock, name);
  } else {
    spec = await ctx.withDatabase(async (db) => {
      const { getServer, specOf } = await import('../registry/servers-repo.js');
      const row = await getServer(db, name);
      return connectSpecOf({ ...specOf(row), protocolEra: row.protocolEra });
    });
    source = baselineSource((fn) => ctx.withDatabase((db) => fn(db)), name);
  }
  const { signal: _signal, ...session } = probeOptionsOf(ctx.config, ctx.env);
  await runStdioGateway({
    spec,
    session,
    source,
    policy: ctx.config.GATEWAY_POLICY,
    logger,
    signal: ctx.signal,
  });
}

/** The connection of a locked server, from the host config it was locked from. */
async function lockedSpec(ctx: CommandContext, lockPath: string, name: string) {
  const { readLockfile } = await import('../lockfile/lockfile.js');
  const { configTargets, lockedConfigFiles } = await import('../lockfile/lock-targets.js');
  const { connectSpecOf } = await import('../changes/probe-spec.js');
  const lock = await readLockfile(lockPath);
  if (lock === null) throw new DriftError('NOT_FOUND', `${lockPath} does not exist`);
  const locked = lock.servers.find((server) => server.name === name);
  if (!locked) throw new DriftError('NOT_FOUND', `${lockPath} locks no server named ${name}`);
  if (locked.source.kind !== 'config') {
    throw new DriftError(
      'INVALID_INPUT',
      `${name} was locked from the registry: run \`mcp-drift gateway ${name}\` without --lock`,
    );
  }
  const files = lockedConfigFiles([locked.source], lock.path);
  const targets = await configTargets(files, {
    context: hostContextOf(ctx.env),
    lockfile: lock.path,
  });
  const target = targets.find((t) => t.name === name);
  if (!target) {
    throw new DriftError('NOT_FOUND', `${files.join(', ')} configures no server named ${name}`);
  }
  return connectSpecOf(target.spec);
}
