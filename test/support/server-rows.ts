import type { Database } from '../../src/db/client.js';
import { servers, type ServerRow } from '../../src/db/schema.js';

/**
 * A registered server nobody probes (its URL is the discard port): the subject of tests
 * that record observations directly rather than through a real server.
 */
export async function insertServer(db: Database, name: string): Promise<ServerRow> {
  const [row] = await db
    .insert(servers)
    .values({ name, transport: 'http', url: 'http://127.0.0.1:9/mcp' })
    .returning();
  return row!;
}
