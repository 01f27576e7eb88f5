import path from 'node:path';
import { probeOptionsOf } from '../changes/probe-spec.js';
import type { Severity } from '../diff/severity.js';
import { formatFindingsText } from '../diff/format-text.js';
import { DriftError } from '../errors.js';
import { configTargets, lockedConfigFiles, type LockTarget } from '../lockfile/lock-targets.js';
import { lockServers, type LockReport } from '../lockfile/lock-servers.js';
import type { ProbeResult } from '../mcp/index.js';
import { DEFAULT_LOCKFILE, readLockfile, type LockfileRead } from '../lockfile/lockfile.js';
import { verifySarifLog } from '../lockfile/verify-sarif.js';
import { verifyServers, type VerifyReport } from '../lockfile/verify-servers.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import type { CommandContext } from './context.js';
import { enforceFailOn, formatFlag, severityFlag } from './flags.js';
import { fileUri, formatTable, printJson, printLine, printText, short } from './output.js';
import { hostContextOf } from './host-context.js';
import { Progress } from './progress.js';
import { packageVersion } from './version.js';

/*
 * `mcp-drift lock` and `mcp-drift verify`: CI without a database. With --config, the
 * servers are host config entries and nothing opens a database; without, `lock` takes
 * the registry's servers and `verify` the sources the lockfile names.
 */

/** The registry's servers; its module (and the database driver) load only on this path. */
async function registryServers(ctx: CommandContext): Promise<LockTarget[]> {
  const { registryTargets } = await import('../lockfile/registry-targets.js');
  return ctx.withDatabase((db) => registryTargets(db));
}

function nothingToList(where: string): DriftError {
  return new DriftError(
    'INVALID_INPUT',
    `no servers to list in ${where}; give --config FILE (a host config such as .mcp.json) or register servers`,
  );
}

export async function lockCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as {
    config?: string[];
    out?: string;
    update?: boolean;
    keepGoing?: boolean;
    failOn?: string;
    json?: boolean;
  };
  const problems = new Problems();
  const failOn = severityFlag(problems, '--fail-on', opts.failOn);
  problems.throwIfAny();
  const ctx = await run.context();
  const lockfile = path.resolve(opts.out ?? DEFAULT_LOCKFILE);
  const existing = await readLockfile(lockfile);
  const targets = opts.config
    ? await configTargets(opts.config, { context: hostContextOf(ctx.env), lockfile })
    : await registryServers(ctx);
  if (targets.length === 0)
    throw nothingToList(opts.config ? opts.config.join(', ') : 'the registry');
  const progress = new Progress();
  progress.start(targets.map((target) => target.name));
  const report = await lockServers(targets, {
    lockfile,
    existing,
    update: opts.update === true,
    keepGoing: opts.keepGoing === true,
    probe: probeOptionsOf(ctx.config, ctx.env, ctx.signal),
    onListed: (target, result) => progress.finished(target.name, result.ok, listedDetail(result)),
  }).finally(() => progress.stop());
  if (opts.json) {
    printJson(report);
    enforceFailOn(report.severity, failOn);
    return throwIfFailed(report);
  }
  printLine(
    formatTable(
      ['SERVER', 'STATUS', 'TOOLS', 'LISTING', 'SERVER INFO', 'PROTOCOL'],
      report.servers.map((server) => [
        server.name,
        server.status,
        String(server.tools ?? '-'),
        server.hash ? short(server.hash) : '-',
        server.serverInfo
          ? `${server.serverInfo.name ?? '?'} ${server.serverInfo.version ?? ''}`.trim()
          : '-',
        server.protocolVersion ?? '-',
      ]),
    ),
  );
  const differs = report.servers
    .filter((server) => server.status === 'differs')
    .map((server) => server.name);
  if (differs.length > 0) {
    printLine(
      `${differs.join(', ')}: the listing differs from the lock, which is kept; \`mcp-drift verify\` shows how, \`mcp-drift lock --update\` accepts it`,
    );
  }
  printLine(
    report.written
      ? `wrote ${path.relative(process.cwd(), lockfile) || lockfile}`
      : 'the lockfile is up to date',
  );
  if (report.findings.length > 0) {
    printLine();
    printLine('What the newly locked listings say (content checks, as on a first listing):');
    printText(formatFindingsText(report));
  }
  enforceFailOn(report.severity, failOn);
  throwIfFailed(report);
}

/** lock --keep-going wrote what answered; the servers that did not still fail the command. */
function throwIfFailed(report: LockReport): void {
  const failed = report.servers.filter((server) => server.error !== null);
  if (failed.length === 0) return;
  throw new DriftError(
    failed[0]!.error!.code,
    `not locked: ${failed.map((server) => `${server.name} (${server.error!.reason})`).join('; ')}${report.written ? '; the servers that answered were written' : ''}`,
  );
}

/** A finished server's progress line. */
function listedDetail(result: ProbeResult): string {
  return result.ok
    ? `${result.tools.length} tools, ${result.durationMs} ms`
    : `${result.reason} (${result.durationMs} ms)`;
}

/** verify's threshold when no --fail-on is given. */
export const VERIFY_FAIL_ON: Severity = 'high';

export async function verifyCommand(run: CommandRun): Promise<void> {
  const opts = run.opts as {
    lock?: string;
    config?: string[];
    failOn?: string;
    format?: string;
    json?: boolean;
  };
  const problems = new Problems();
  // CI is the reason verify exists, and a job that passes on a critical change protects
  // nobody: verify fails at high unless told otherwise (`--fail-on none` opts out).
  const failOn =
    opts.failOn === 'none'
      ? undefined
      : (severityFlag(problems, '--fail-on', opts.failOn) ?? VERIFY_FAIL_ON);
  const format = formatFlag(problems, opts.format, opts.json);
  problems.throwIfAny();
  const ctx = await run.context();
  const lockPath = path.resolve(opts.lock ?? DEFAULT_LOCKFILE);
  const lock = await readLockfile(lockPath);
  if (lock === null) {
    throw new DriftError(
      'NOT_FOUND',
      `no lockfile at ${lockPath}; write one with mcp-drift lock --config FILE`,
    );
  }
  const targets = await verifyTargets(ctx, lock, opts.config);
  const progress = new Progress();
  progress.start(
    targets
      .filter((target) => lock.servers.some((s) => s.name === target.name))
      .map((target) => target.name),
  );
  const report = await verifyServers(targets, lock, {
    probe: probeOptionsOf(ctx.config, ctx.env, ctx.signal),
    onListed: (target, result) => progress.finished(target.name, result.ok, listedDetail(result)),
  }).finally(() => progress.stop());
  if (format === 'json') printJson(report);
  else if (format === 'sarif')
    printJson(verifySarifLog(report, lock, { uri: fileUri, toolVersion: packageVersion() }));
  else printVerifyText(report);
  enforceFailOn(report.severity, failOn);
  const failed = report.servers.filter((server) => server.error !== null);
  if (failed.length > 0) {
    throw new DriftError(
      failed[0]!.error!.code,
      `could not list ${failed.map((server) => `${server.name} (${server.error!.reason})`).join('; ')}`,
    );
  }
  const unlocked = report.servers.filter((server) => server.status === 'unlocked');
  if (unlocked.length > 0) {
    throw new DriftError(
      'NOT_FOUND',
      `not in ${path.basename(lockPath)}: ${unlocked.map((server) => server.name).join(', ')}; review them and run mcp-drift lock`,
    );
  }
}

/** --config, else the host configs (and the registry) the lockfile's entries came from. */
async function verifyTargets(
  ctx: CommandContext,
  lock: LockfileRead,
  config: string[] | undefined,
): Promise<LockTarget[]> {
  const context = hostContextOf(ctx.env);
  if (config) return configTargets(config, { context, lockfile: lock.path });
  const sources = lock.servers.map((server) => server.source);
  const files = lockedConfigFiles(sources, lock.path);
  const targets =
    files.length > 0 ? await configTargets(files, { context, lockfile: lock.path }) : [];
  if (sources.some((source) => source.kind === 'registry'))
    targets.push(...(await registryServers(ctx)));
  if (targets.length === 0) throw nothingToList(lock.path);
  return targets;
}

function printVerifyText(report: VerifyReport): void {
  printLine(
    formatTable(
      ['SERVER', 'STATUS', 'SEVERITY', 'FINDINGS', 'LOCKED', 'NOW'],
      report.servers.map((server) => [
        server.name,
        server.status,
        server.severity,
        String(server.findings),
        server.lockedHash ? short(server.lockedHash) : '-',
        server.currentHash ? short(server.currentHash) : (server.error?.reason ?? '-'),
      ]),
    ),
  );
  for (const server of report.servers) {
    const findings = report.findings.filter((finding) => finding.record.server === server.name);
    if (findings.length === 0) continue;
    printLine();
    printLine(`${server.name}:`);
    printText(formatFindingsText({ severity: server.severity, findings }));
  }
  printLine();
  printLine(
    `${report.servers.length} server(s) against ${fileUri(report.lockfile)}: severity ${report.severity}`,
  );
}
