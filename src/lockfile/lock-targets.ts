import path from 'node:path';
import type { TrustLevel } from '../diff/types.js';
import type { Era } from '../mcp/index.js';
import { Problems } from '../problems.js';
import { guessHost, readHostConfig, type HostContext } from '../registry/host-configs.js';
import { convertEntry } from '../registry/host-entry.js';
import type { ServerSpec } from '../registry/server-spec.js';
import type { LockSource } from './lockfile.js';

/*
 * The servers `lock` and `verify` list: the entries of host config files (in CI, no
 * database at all), or the registry's enabled servers.
 */

export interface LockTarget {
  name: string;
  spec: ServerSpec & { protocolEra?: Era | null };
  /** What the findings say hosts do with the hints; a host config says nothing: untrusted. */
  trust: TrustLevel;
  source: LockSource;
}

/** A path as the lockfile records it: relative to the lockfile, with forward slashes. */
export function recordedPath(file: string, lockfile: string): string {
  const relative = path.relative(path.dirname(path.resolve(lockfile)), path.resolve(file));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return path.resolve(file);
  return relative.split(path.sep).join('/');
}

/**
 * Every enabled entry of the files, by its registry name. An entry that cannot be
 * listed as written, or one name in two files, is an INVALID_INPUT naming all of them:
 * a lock that silently leaves a server out would vouch for what it never saw.
 */
export async function configTargets(
  files: readonly string[],
  options: { context: HostContext; lockfile: string },
): Promise<LockTarget[]> {
  const problems = new Problems();
  const targets = new Map<string, LockTarget & { where: string }>();
  for (const given of files) {
    const file = path.resolve(options.context.projectDir, given);
    const config = await readHostConfig(
      file,
      guessHost(file) ?? 'generic',
      'project',
      options.context,
    );
    for (const entry of config.entries) {
      const converted = convertEntry(config, entry, { context: options.context });
      const where = `${given}:${entry.line}`;
      if (!converted.enabled) continue;
      if (converted.spec === null) {
        problems.add(
          'INVALID_INPUT',
          `${where}: server ${entry.name} cannot be listed: ${converted.reason}`,
        );
        continue;
      }
      const earlier = targets.get(converted.name);
      if (earlier) {
        problems.add(
          'INVALID_INPUT',
          `${where}: a server named ${converted.name} is also at ${earlier.where}`,
        );
        continue;
      }
      targets.set(converted.name, {
        name: converted.name,
        spec: converted.spec,
        trust: 'untrusted',
        source: {
          kind: 'config',
          host: config.host,
          file: recordedPath(file, options.lockfile),
          entry: entry.name,
        },
        where,
      });
    }
  }
  problems.throwIfAny();
  return [...targets.values()].map(({ where: _where, ...target }) => target);
}

/** The files a lockfile's entries were locked from, as paths to read. */
export function lockedConfigFiles(sources: readonly LockSource[], lockfile: string): string[] {
  const files = new Set<string>();
  for (const source of sources) {
    if (source.kind === 'config')
      files.add(path.resolve(path.dirname(path.resolve(lockfile)), source.file));
  }
  return [...files];
}
