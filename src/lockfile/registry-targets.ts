import type { Database } from '../db/client.js';
import { listServers, specOf } from '../registry/servers-repo.js';
import type { LockTarget } from './lock-targets.js';

/** The registry's enabled servers, for `lock` and `verify` without --config. */
export async function registryTargets(db: Database): Promise<LockTarget[]> {
  return (await listServers(db))
    .filter((row) => row.enabled)
    .map((row) => ({
      name: row.name,
      spec: { ...specOf(row), protocolEra: row.protocolEra },
      trust: row.trust,
      source: { kind: 'registry' },
    }));
}
