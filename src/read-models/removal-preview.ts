import { countAlerts } from '../alerts/alerts-repo.js';
import { countChanges } from '../changes/changes-repo.js';
import type { Database } from '../db/client.js';
import { countObservations } from '../listings/listings-repo.js';
import { getServer } from '../registry/servers-repo.js';

/** What removing a server deletes with it (ON DELETE CASCADE): its whole history. */
export interface RemovalPreview {
  server: string;
  observations: number;
  changes: number;
  alerts: number;
}

export async function previewRemoval(db: Database, name: string): Promise<RemovalPreview> {
  const server = await getServer(db, name);
  return {
    server: server.name,
    observations: await countObservations(db, server.id),
    changes: await countChanges(db, server.id),
    alerts: await countAlerts(db, server.id),
  };
}
