import { readFile, rename, writeFile } from 'node:fs/promises';
import { DriftError } from '../errors.js';
import {
  JsonSyntaxError,
  parseJsonSource,
  type JsonPath,
  type JsonSource,
} from '../json-source.js';
import {
  canonicalize,
  canonicalListing,
  type Extras,
  type RawTool,
} from '../listings/canonical.js';
import { extrasFromDocument, presentationDocument } from '../listings/presentation.js';
import { validateTools } from '../listings/validate.js';
import { HOSTS, type HostOrGeneric } from '../registry/host-configs.js';
import { isObject } from '../is-object.js';

/*
 * mcp-drift.lock.json: the listings a project accepted, one entry per server, kept in
 * version control and checked by `mcp-drift verify` in CI. Written to be read in review:
 * keys in canonical order, tools sorted by name and each one a block of its own, no
 * timestamps, so that locking unchanged servers rewrites the same bytes and a relaxed
 * hint is one changed line in a pull request.
 */

export const LOCKFILE_VERSION = 1;
export const DEFAULT_LOCKFILE = 'mcp-drift.lock.json';

/** Where a locked server's connection is written: a host config entry, or the registry. */
export type LockSource =
  { kind: 'config'; host: HostOrGeneric; file: string; entry: string } | { kind: 'registry' };

export interface LockedServer {
  name: string;
  source: LockSource;
  /** `serverInfo` as the server gave it: its name and version. */
  serverInfo: { name: string | null; version: string | null } | null;
  protocolVersion: string | null;
  /** sha256 of the RFC 8785 form of the tools: the listing's identity, as everywhere. */
  hash: string;
  /** The canonical listing: sorted by name, keys sorted, `annotations: {}` dropped. */
  tools: RawTool[];
  /** Prompts, resources, templates (each sorted by its key) and instructions; null: absent. */
  extras: Extras;
}

/** What was read from a lockfile, with where each value stands in it (SARIF regions). */
export interface LockfileRead {
  path: string;
  servers: LockedServer[];
  source: JsonSource;
}

/** Where a locked tool is in the file. */
export function lockedToolPath(server: string, index: number): JsonPath {
  return ['servers', server, 'tools', index];
}

/** The canonical form of a presentation, as the lockfile holds it. */
export function canonicalPresentation(
  tools: readonly RawTool[],
  extras: Extras,
): { hash: string; tools: RawTool[]; extras: Extras } {
  const listing = canonicalListing(tools, extras);
  // The canonical text of the tools alone: what the tools array of the lock holds.
  const toolsText = canonicalListing(listing.tools).canonical;
  return {
    hash: listing.hash,
    tools: JSON.parse(toolsText) as RawTool[],
    extras: JSON.parse(canonicalize(listing.extras)) as Extras,
  };
}

export function renderLockfile(servers: readonly LockedServer[]): string {
  const byName = [...servers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const document = {
    lockfileVersion: LOCKFILE_VERSION,
    servers: Object.fromEntries(
      byName.map((server) => [
        server.name,
        {
          hash: server.hash,
          protocolVersion: server.protocolVersion,
          serverInfo: server.serverInfo,
          source: server.source,
          ...presentationDocument({ tools: server.tools, ...server.extras }),
        },
      ]),
    ),
  };
  // Every key in canonical order, as in the tools: the order is the file's, not the code's.
  return `${JSON.stringify(JSON.parse(canonicalize(document)), null, 2)}\n`;
}

/** Replaces the file whole: a reader never sees half a lockfile. */
export async function writeLockfile(path: string, servers: readonly LockedServer[]): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, renderLockfile(servers));
  await rename(temporary, path);
}

function lockSource(value: unknown): LockSource | null {
  if (!isObject(value)) return null;
  if (value['kind'] === 'registry') return { kind: 'registry' };
  const { host, file, entry } = value;
  if (
    value['kind'] === 'config' &&
    typeof host === 'string' &&
    ([...HOSTS, 'generic'] as string[]).includes(host) &&
    typeof file === 'string' &&
    typeof entry === 'string'
  ) {
    return { kind: 'config', host: host as HostOrGeneric, file, entry };
  }
  return null;
}

/** Reads and checks a lockfile; null when there is none. Problems name the file and line. */
export async function readLockfile(path: string): Promise<LockfileRead | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new DriftError('INVALID_INPUT', `cannot read ${path}: ${(error as Error).message}`);
  }
  let source: JsonSource;
  try {
    source = parseJsonSource(text, { positionDepth: 8 });
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new DriftError(
      'INVALID_INPUT',
      `${path}:${error.position.line}:${error.position.column}: ${error.problem}`,
    );
  }
  const fail = (at: JsonPath, problem: string): never => {
    throw new DriftError('INVALID_INPUT', `${path}:${source.position(at)?.line ?? 1}: ${problem}`);
  };
  const doc = source.value;
  if (!isObject(doc) || !isObject(doc['servers'])) {
    return fail([], 'not an mcp-drift lockfile: it needs "lockfileVersion" and "servers"');
  }
  if (doc['lockfileVersion'] !== LOCKFILE_VERSION) {
    fail(
      ['lockfileVersion'],
      `lockfileVersion ${JSON.stringify(doc['lockfileVersion'])} is not ${LOCKFILE_VERSION}: written by another version of mcp-drift`,
    );
  }
  const servers: LockedServer[] = [];
  for (const [name, entry] of Object.entries(doc['servers'])) {
    const at = ['servers', name];
    if (!isObject(entry)) return fail(at, `server ${name} must be an object`);
    const tools = (() => {
      try {
        return validateTools(entry['tools'], `server ${name}: tools`);
      } catch (error) {
        return fail([...at, 'tools'], (error as Error).message);
      }
    })();
    const extras = (() => {
      try {
        return extrasFromDocument(entry, `server ${name}`);
      } catch (error) {
        return fail(at, (error as Error).message);
      }
    })();
    // A lock written before surfaces has none of them: absent, and its hash still holds.
    const { hash } = canonicalListing(tools, extras);
    if (entry['hash'] !== hash) {
      fail(
        [...at, 'hash'],
        `server ${name}: its listing does not match its hash (edited by hand?); run mcp-drift lock --update to lock what the server lists`,
      );
    }
    const info = entry['serverInfo'];
    const origin = lockSource(entry['source']);
    if (origin === null) {
      fail(
        [...at, 'source'],
        `server ${name}: "source" must be {"kind": "registry"} or {"kind": "config", "host", "file", "entry"}`,
      );
    }
    servers.push({
      name,
      source: origin!,
      serverInfo: isObject(info)
        ? {
            name: typeof info['name'] === 'string' ? info['name'] : null,
            version: typeof info['version'] === 'string' ? info['version'] : null,
          }
        : null,
      protocolVersion:
        typeof entry['protocolVersion'] === 'string' ? entry['protocolVersion'] : null,
      hash,
      tools,
      extras,
    });
  }
  return { path, servers, source };
}
