import { findingJson } from '../diff/finding-json.js';
import { diffListings, maxSeverity, type ChangeSeverity, type Finding } from '../diff/index.js';
import type { DriftErrorCode } from '../errors.js';
import { DriftError } from '../errors.js';
import type { ProbeOptions } from '../mcp/index.js';
import { extrasOf } from '../listings/canonical.js';
import { listTargets, type OnListed } from './list-targets.js';
import type { LockTarget } from './lock-targets.js';
import type { LockfileRead } from './lockfile.js';

/*
 * `mcp-drift verify`: lists each server now and diffs it against its locked listing with
 * the engine `diff` uses, so that CI fails on what a review of the lockfile would have
 * to accept. No database: the lockfile is the baseline.
 */

/**
 * `unchanged`/`changed`: listed and diffed; `unlocked`: configured but not in the lock
 * (run `lock`); `unconfigured`: locked but no longer configured (`lock --update` drops
 * it); `failed`: could not be listed.
 */
export type VerifyStatus = 'unchanged' | 'changed' | 'unlocked' | 'unconfigured' | 'failed';

export interface VerifiedServer {
  name: string;
  status: VerifyStatus;
  lockedHash: string | null;
  currentHash: string | null;
  severity: ChangeSeverity;
  findings: number;
  error: { code: DriftErrorCode; reason: string } | null;
}

export interface VerifyReport {
  lockfile: string;
  /** The highest finding's, over every server; `none` without findings. */
  severity: ChangeSeverity;
  servers: VerifiedServer[];
  /** Every server's findings, each naming its server in `record.server`. */
  findings: Finding[];
}

/** The tools of every other locked server, by tool name: the servers a CI run knows. */
function toolsOfOthers(lock: LockfileRead, server: string): Map<string, string> {
  const tools = new Map<string, string>();
  for (const other of lock.servers) {
    if (other.name === server) continue;
    for (const tool of other.tools) if (!tools.has(tool.name)) tools.set(tool.name, other.name);
  }
  return tools;
}

export async function verifyServers(
  targets: readonly LockTarget[],
  lock: LockfileRead,
  options: { probe: ProbeOptions; onListed?: OnListed },
): Promise<VerifyReport> {
  const locked = new Map(lock.servers.map((server) => [server.name, server]));
  const configured = targets
    .filter((target) => locked.has(target.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const results = await listTargets(configured, options.probe, options.onListed);
  if (options.probe.signal?.aborted) {
    throw new DriftError('INTERRUPTED', 'verify interrupted; every server it started was closed');
  }
  const servers: VerifiedServer[] = [];
  const findings: Finding[] = [];
  configured.forEach((target, index) => {
    const before = locked.get(target.name)!;
    const result = results[index]!;
    if (!result.ok) {
      servers.push({
        name: target.name,
        status: 'failed',
        lockedHash: before.hash,
        currentHash: null,
        severity: 'none',
        findings: 0,
        error: { code: result.code, reason: result.reason },
      });
      return;
    }
    // As `check` diffs against a baseline: both sides' versions (unversioned_change), and
    // the other servers' tools, which a text here may direct (tool_shadowing).
    const version = result.serverInfo?.version;
    const diff = diffListings(
      { tools: before.tools, ...before.extras },
      { tools: result.tools, ...extrasOf(result) },
      {
        trust: target.trust,
        server: target.name,
        before: { serverVersion: before.serverInfo?.version ?? null },
        after: { serverVersion: typeof version === 'string' ? version : null },
        otherServerTools: toolsOfOthers(lock, target.name),
      },
    );
    findings.push(...diff.findings.map(findingJson));
    servers.push({
      name: target.name,
      status: diff.changed ? 'changed' : 'unchanged',
      lockedHash: before.hash,
      currentHash: diff.afterHash,
      severity: diff.severity,
      findings: diff.findings.length,
      error: null,
    });
  });
  const names = new Set(targets.map((target) => target.name));
  for (const target of targets) {
    if (!locked.has(target.name)) {
      servers.push({
        name: target.name,
        status: 'unlocked',
        lockedHash: null,
        currentHash: null,
        severity: 'none',
        findings: 0,
        error: null,
      });
    }
  }
  for (const server of lock.servers) {
    if (!names.has(server.name)) {
      servers.push({
        name: server.name,
        status: 'unconfigured',
        lockedHash: server.hash,
        currentHash: null,
        severity: 'none',
        findings: 0,
        error: null,
      });
    }
  }
  servers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    lockfile: lock.path,
    severity: maxSeverity(servers.map((server) => server.severity)),
    servers,
    findings,
  };
}
