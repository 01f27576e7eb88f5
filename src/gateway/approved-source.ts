import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import type { RawTool } from '../listings/canonical.js';
import type { TrustLevel } from '../vocabulary/trust-levels.js';

/** What the host is served, and where it came from. */
export interface Approved {
  /** The approved listing's hash: a new one means an approval happened. */
  hash: string;
  tools: RawTool[];
  trust: TrustLevel;
}

/**
 * Where the gateway reads the approved definitions from: the registry's baseline, or a
 * lockfile (docs/gateway.md). `changeId` names the pending change holding a listing, for
 * refusals; null when none is recorded (or there is no database).
 */
export interface ApprovedSource {
  /** Cheap when nothing changed: polled every second so that approvals reach hosts. */
  load(): Promise<Approved>;
  changeId(listingHash: string): Promise<string | null>;
  /** How a refusal tells the operator to accept the change. */
  approveHint: string;
}

export type WithDatabase = <T>(fn: (db: Database) => Promise<T>) => Promise<T>;

/** The registry's baseline of server `name`. */
export function baselineSource(withDatabase: WithDatabase, name: string): ApprovedSource {
  let cached: Approved | null = null;
  return {
    approveHint: `mcp-drift baseline approve ${name}`,
    async load() {
      return await withDatabase(async (db) => {
        const { requireBaseline } = await import('../changes/baseline.js');
        const { loadListingTools } = await import('../listings/listings-repo.js');
        const { server, baseline } = await requireBaseline(db, name);
        if (cached?.hash !== baseline.listingHash || cached.trust !== server.trust) {
          cached = {
            hash: baseline.listingHash,
            tools: await loadListingTools(db, baseline.listingHash),
            trust: server.trust,
          };
        }
        return cached;
      });
    },
    async changeId(listingHash) {
      return await withDatabase(async (db) => {
        const { getServer } = await import('../registry/servers-repo.js');
        const { latestChangeTo } = await import('../changes/changes-repo.js');
        const server = await getServer(db, name);
        const id = await latestChangeTo(db, server.id, listingHash);
        return id === undefined ? null : String(id);
      });
    },
  };
}

/** A lockfile's entry for `name`: read again on each load, so `lock --update` needs no restart. */
export function lockfileSource(path: string, name: string): ApprovedSource {
  return {
    approveHint: `mcp-drift lock --update --out ${path}`,
    async load() {
      const { readLockfile } = await import('../lockfile/lockfile.js');
      const lock = await readLockfile(path);
      if (lock === null) throw new DriftError('NOT_FOUND', `${path} does not exist`);
      const server = lock.servers.find((s) => s.name === name);
      if (!server) throw new DriftError('NOT_FOUND', `${path} locks no server named ${name}`);
      return { hash: server.hash, tools: server.tools, trust: 'untrusted' };
    },
    async changeId() {
      return null;
    },
  };
}
