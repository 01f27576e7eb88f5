import { findingJson } from '../diff/finding-json.js';
import {
  checkFirstListing,
  maxSeverity,
  type ChangeSeverity,
  type Finding,
} from '../diff/index.js';
import { DriftError, type DriftErrorCode } from '../errors.js';
import { extrasOf } from '../listings/canonical.js';
import type { ProbeOptions, ProbeSuccess } from '../mcp/index.js';
import { listTargets, type OnListed } from './list-targets.js';
import type { LockTarget } from './lock-targets.js';
import {
  canonicalPresentation,
  writeLockfile,
  type LockedServer,
  type LockfileRead,
} from './lockfile.js';

/*
 * `mcp-drift lock`: lists each server now and writes what it lists to the lockfile. An
 * existing lock is a decision someone reviewed: without `update`, servers new to it are
 * added and the others keep their locked listing (`verify` shows how they differ);
 * `update` accepts every current listing and drops servers no longer configured.
 */

/** `failed`: not listed (with keepGoing); a lock it had is kept as it was. */
export type LockStatus =
  'locked' | 'unchanged' | 'updated' | 'differs' | 'kept' | 'dropped' | 'failed';

export interface LockOutcome {
  name: string;
  status: LockStatus;
  /** The listing now in the lockfile for this server (null once dropped); the rest describe it. */
  hash: string | null;
  /** The listing the server gave now (null for a server not listed: kept or dropped). */
  currentHash: string | null;
  tools: number | null;
  protocolVersion: string | null;
  serverInfo: LockedServer['serverInfo'];
  /** Content findings on a listing locked for the first time (what review must look at). */
  findings: number;
  /** Why it was not listed (status `failed`). */
  error: { code: DriftErrorCode; reason: string } | null;
}

export interface LockReport {
  lockfile: string;
  written: boolean;
  /** The highest content finding's over the servers locked for the first time; `none` without. */
  severity: ChangeSeverity;
  servers: LockOutcome[];
  /** Their findings, each naming its server in `record.server`. */
  findings: Finding[];
}

/** Every other server's tools, by tool name, for cross-server shadowing. */
function toolsOfOthers(servers: readonly LockedServer[], name: string): Map<string, string> {
  const tools = new Map<string, string>();
  for (const other of servers) {
    if (other.name === name) continue;
    for (const tool of other.tools) if (!tools.has(tool.name)) tools.set(tool.name, other.name);
  }
  return tools;
}

function lockedFrom(target: LockTarget, result: ProbeSuccess): LockedServer {
  const info = result.serverInfo;
  return {
    name: target.name,
    source: target.source,
    serverInfo: info ? { name: info.name ?? null, version: info.version ?? null } : null,
    protocolVersion: result.protocolVersion,
    ...canonicalPresentation(result.tools, extrasOf(result)),
  };
}

const same = (a: LockedServer, b: LockedServer) =>
  JSON.stringify([a.hash, a.source, a.serverInfo, a.protocolVersion]) ===
  JSON.stringify([b.hash, b.source, b.serverInfo, b.protocolVersion]);

/**
 * A server that cannot be listed stops the lock with nothing written, its reason and
 * code (exit 4 for an unreachable one): a lock is all the servers or none. With keepGoing
 * the servers that answered are locked, a failed one keeps what the lock had for it, and the
 * report says which failed (the command then exits non-zero).
 */
export async function lockServers(
  targets: readonly LockTarget[],
  options: {
    lockfile: string;
    existing: LockfileRead | null;
    update: boolean;
    probe: ProbeOptions;
    keepGoing?: boolean;
    onListed?: OnListed;
  },
): Promise<LockReport> {
  const results = await listTargets(targets, options.probe, options.onListed);
  if (options.probe.signal?.aborted) {
    throw new DriftError('INTERRUPTED', 'lock interrupted; every server it started was closed');
  }
  const failures = results.flatMap((result, index) =>
    result.ok ? [] : [{ name: targets[index]!.name, result }],
  );
  if (failures.length > 0 && options.keepGoing !== true) {
    throw new DriftError(
      failures[0]!.result.code,
      `nothing locked: ${failures.map(({ name, result }) => `${name}: ${result.reason}`).join('; ')}`,
    );
  }
  const current = targets.flatMap((target, index) => {
    const result = results[index]!;
    return result.ok ? [lockedFrom(target, result)] : [];
  });
  const failed = new Map(failures.map(({ name, result }) => [name, result]));
  const locked = new Map((options.existing?.servers ?? []).map((server) => [server.name, server]));
  const next: LockedServer[] = [];
  const outcomes: LockOutcome[] = [];
  const findings: Finding[] = [];
  const outcome = (server: LockedServer, status: LockStatus, now: LockedServer | null): void => {
    // A listing locked for the first time is what `verify` will never check again on its
    // own: a poisoned description locked now would pass every later run. Its content is
    // checked as a first listing is when the service records one.
    const found =
      status === 'locked'
        ? checkFirstListing(
            { tools: server.tools, ...server.extras },
            {
              server: server.name,
              otherServerTools: toolsOfOthers(current, server.name),
            },
          ).findings
        : [];
    findings.push(...found.map(findingJson));
    outcomes.push({
      name: server.name,
      status,
      hash: status === 'dropped' ? null : server.hash,
      currentHash: now?.hash ?? null,
      tools: server.tools.length,
      protocolVersion: server.protocolVersion,
      serverInfo: server.serverInfo,
      findings: found.length,
      error: null,
    });
  };
  for (const now of current) {
    const before = locked.get(now.name);
    locked.delete(now.name);
    if (!before) {
      next.push(now);
      outcome(now, 'locked', now);
    } else if (same(before, now)) {
      next.push(before);
      outcome(before, 'unchanged', now);
    } else if (options.update) {
      next.push(now);
      outcome(now, 'updated', now);
    } else if (before.hash === now.hash) {
      // The same tools under another version string: nothing a review must see.
      next.push(before);
      outcome(before, 'unchanged', now);
    } else {
      next.push(before);
      outcome(before, 'differs', now);
    }
  }
  for (const [name, result] of failed) {
    const before = locked.get(name);
    locked.delete(name);
    if (before) next.push(before);
    outcomes.push({
      name,
      status: 'failed',
      hash: before?.hash ?? null,
      currentHash: null,
      tools: before?.tools.length ?? null,
      protocolVersion: before?.protocolVersion ?? null,
      serverInfo: before?.serverInfo ?? null,
      findings: 0,
      error: { code: result.code, reason: result.reason },
    });
  }
  for (const gone of locked.values()) {
    if (options.update) {
      outcome(gone, 'dropped', null);
    } else {
      next.push(gone);
      outcome(gone, 'kept', null);
    }
  }
  // A first lock of servers none of which answered would be an empty file that verifies.
  const written =
    (options.existing === null && next.length > 0) ||
    outcomes.some((entry) => ['locked', 'updated', 'dropped'].includes(entry.status));
  if (written) await writeLockfile(options.lockfile, next);
  outcomes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    lockfile: options.lockfile,
    written,
    severity: maxSeverity(findings.map((finding) => finding.severity)),
    servers: outcomes,
    findings,
  };
}
