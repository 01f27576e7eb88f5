import { desc, eq } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { gatewayRefusals } from '../db/schema.js';
import type { RefusalReason } from '../vocabulary/gateway-policies.js';

/** Calls serve's gateway refused, for the server's console page (docs/gateway.md). */

export interface GatewayRefusal {
  at: Date;
  tool: string;
  reason: RefusalReason;
  changeId: number | null;
}

export async function recordRefusal(
  db: Database,
  serverId: number,
  refusal: { tool: string; reason: RefusalReason; changeId: number | null },
): Promise<void> {
  await db.insert(gatewayRefusals).values({ serverId, ...refusal });
}

/** The latest refusals of a server, newest first. */
export async function latestRefusals(
  db: Database,
  serverId: number,
  limit = 20,
): Promise<GatewayRefusal[]> {
  return await db
    .select({
      at: gatewayRefusals.at,
      tool: gatewayRefusals.tool,
      reason: gatewayRefusals.reason,
      changeId: gatewayRefusals.changeId,
    })
    .from(gatewayRefusals)
    .where(eq(gatewayRefusals.serverId, serverId))
    .orderBy(desc(gatewayRefusals.id))
    .limit(limit);
}
