import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import { Problems } from '../problems.js';
import {
  guessHost,
  hostConfigLocations,
  readHostConfig,
  type Host,
  type HostConfigFile,
  type HostContext,
  type HostOrGeneric,
} from './host-configs.js';
import { convertEntry, entryTarget, type ConvertedEntry, type SecretNote } from './host-entry.js';
import { listImports, saveImport } from './server-imports-repo.js';
import type { ServerSpec, Transport } from './server-spec.js';
import {
  insertServer,
  listServers,
  setServerEnabled,
  specOf,
  updateServer,
} from './servers-repo.js';

/*
 * `server import`: registers the servers written in MCP hosts' config files. Reading and
 * converting (readImportSources) needs no database, so a malformed file stops the import
 * before anything is opened; applying (importServers) writes in one transaction.
 */

export interface ImportRequest {
  /** Files given on the command line; none: every host's documented locations. */
  files: string[];
  /** Only this host's locations; for files, the host they belong to. */
  from?: Host;
  prefix?: string;
  context: HostContext;
}

export interface ImportSource {
  host: HostOrGeneric;
  scope: 'user' | 'project';
  path: string;
  found: boolean;
  /** How many server entries it holds. */
  servers: number;
}

export interface ImportPlan {
  sources: ImportSource[];
  entries: ConvertedEntry[];
}

export type ImportStatus =
  'added' | 'updated' | 'unchanged' | 'changed' | 'clash' | 'duplicate' | 'skipped' | 'untrusted';

/**
 * Why an entry of a project's file waits for --trust-project: a repository's `.mcp.json`
 * is written by whoever wrote the repository, and a stdio entry's command would run as the
 * operator on every probe. Hosts ask before trusting these files; so does import.
 */
const UNTRUSTED_PROJECT =
  'from a file in this project: whoever wrote the repository wrote it, and its command would run as you on every probe; review it and import again with --trust-project';

/** One entry's outcome, as `--json` prints it (with --dry-run: what would happen). */
export interface ImportedServer {
  name: string;
  /** Its name in the host config. */
  entry: string;
  host: HostOrGeneric;
  source: string;
  line: number;
  scope: 'user' | 'project' | 'local';
  status: ImportStatus;
  /** Why it was skipped, or what it clashes with, or how it changed. */
  reason: string | null;
  transport: Transport | null;
  /** Command line or URL, secrets masked. */
  target: string | null;
  enabled: boolean;
  notes: string[];
  secrets: SecretNote[];
}

export interface ImportReport {
  dryRun: boolean;
  sources: ImportSource[];
  servers: ImportedServer[];
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

export async function readImportSources(request: ImportRequest): Promise<ImportPlan> {
  const { context } = request;
  const problems = new Problems();
  const files: HostConfigFile[] = [];
  const sources: ImportSource[] = [];
  const read = async (file: string, host: HostOrGeneric, scope: 'user' | 'project') => {
    try {
      const config = await readHostConfig(file, host, scope, context);
      files.push(config);
      sources.push({ host, scope, path: file, found: true, servers: config.entries.length });
    } catch (error) {
      // Every unreadable or malformed file is named at once, as flags are.
      if (!(error instanceof DriftError) || error.code !== 'INVALID_INPUT') throw error;
      problems.add('INVALID_INPUT', error.message);
    }
  };
  if (request.files.length > 0) {
    for (const given of request.files) {
      const file = path.resolve(context.projectDir, given);
      const host = request.from ?? guessHost(file) ?? 'generic';
      const scope = file.startsWith(path.resolve(context.projectDir) + path.sep)
        ? 'project'
        : 'user';
      await read(file, host, scope);
    }
  } else {
    for (const location of hostConfigLocations(
      context,
      request.from ? [request.from] : undefined,
    )) {
      if (await exists(location.path)) await read(location.path, location.host, location.scope);
      else sources.push({ ...location, found: false, servers: 0 });
    }
  }
  problems.throwIfAny();
  if (!sources.some((source) => source.found)) {
    throw new DriftError(
      'NOT_FOUND',
      `no host config found; looked in ${sources.map((source) => source.path).join(', ')}; name a file: mcp-drift server import FILE`,
    );
  }
  const entries = files.flatMap((file) =>
    file.entries.map((entry) => convertEntry(file, entry, { prefix: request.prefix, context })),
  );
  return { sources, entries };
}

/**
 * Registers what the plan holds. A server of the same name registered otherwise (by
 * hand, or imported from another file), or an entry that changed since it was imported,
 * is reported and left alone unless `update`, which replaces the registration's
 * connection (transport, command, env, URL, headers) and keeps the rest (trust, schedule,
 * recipients). `dryRun` writes nothing and answers what would happen.
 */
export async function importServers(
  db: Database,
  plan: ImportPlan,
  options: { dryRun: boolean; update: boolean; trustProject?: boolean },
): Promise<ImportReport> {
  const apply = async (tx: Database): Promise<ImportedServer[]> => {
    const byName = new Map((await listServers(tx)).map((row) => [row.name, row]));
    const origins = new Map((await listImports(tx)).map((record) => [record.serverId, record]));
    const taken = new Map<string, ConvertedEntry>();
    const outcomes: ImportedServer[] = [];
    for (const converted of plan.entries) {
      const { spec, file, entry } = converted;
      const outcome = (status: ImportStatus, reason: string | null = null): void => {
        outcomes.push({
          name: converted.name,
          entry: entry.name,
          host: file.host,
          source: file.path,
          line: entry.line,
          scope: entry.scope,
          status,
          reason,
          transport: spec?.transport ?? null,
          target: spec ? entryTarget(spec) : null,
          enabled: converted.enabled,
          notes: converted.notes,
          secrets: converted.secrets,
        });
      };
      if (spec === null) {
        outcome('skipped', converted.reason);
        continue;
      }
      if (file.scope === 'project' && options.trustProject !== true) {
        outcome('untrusted', UNTRUSTED_PROJECT);
        continue;
      }
      const earlier = taken.get(converted.name);
      if (earlier) {
        if (earlier.hash === converted.hash) {
          outcome('duplicate', `the same server as ${earlier.entry.name} in ${earlier.file.path}`);
        } else {
          outcome(
            'clash',
            `${earlier.file.path} has another server named ${converted.name}; give --prefix to import both`,
          );
        }
        continue;
      }
      taken.set(converted.name, converted);
      const record = {
        host: file.host,
        sourcePath: file.path,
        entryName: entry.name,
        entryHash: converted.hash!,
      };
      const row = byName.get(converted.name);
      if (!row) {
        if (!options.dryRun) {
          const inserted = await insertServer(tx, spec);
          if (!converted.enabled) await setServerEnabled(tx, inserted.name, false);
          await saveImport(tx, { serverId: inserted.id, ...record });
        }
        outcome('added');
        continue;
      }
      const origin = origins.get(row.id);
      const sameEntry =
        origin !== undefined &&
        origin.host === record.host &&
        origin.sourcePath === record.sourcePath &&
        origin.entryName === record.entryName;
      if (sameEntry && origin.entryHash === record.entryHash) {
        outcome('unchanged');
        continue;
      }
      if (!options.update) {
        outcome(
          sameEntry ? 'changed' : 'clash',
          sameEntry
            ? `changed in ${file.path} since it was imported (${origin.importedAt.toISOString()}); --update replaces the registration's connection`
            : origin
              ? `a server of this name was imported from ${origin.sourcePath} (${origin.entryName}); --update replaces it, --prefix imports both`
              : 'a server of this name is registered already; --update replaces its connection, --prefix imports both',
        );
        continue;
      }
      if (!options.dryRun) {
        await updateServer(tx, row.name, withConnection(specOf(row), spec));
        if (row.enabled !== converted.enabled)
          await setServerEnabled(tx, row.name, converted.enabled);
        await saveImport(tx, { serverId: row.id, ...record });
      }
      outcome('updated');
    }
    return outcomes;
  };
  const servers = options.dryRun ? await apply(db) : await db.transaction((tx) => apply(tx));
  return { dryRun: options.dryRun, sources: plan.sources, servers };
}

/** The registration with the host's connection; trust, schedule and recipients kept. */
function withConnection(current: ServerSpec, imported: ServerSpec): ServerSpec {
  const { transport, command, args, env, cwd, url, headers, hold } = imported;
  return {
    ...current,
    transport,
    command,
    args,
    env,
    cwd,
    url,
    headers,
    hold: transport === 'stdio' ? current.hold : hold,
  };
}
