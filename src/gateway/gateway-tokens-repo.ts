import { createHash, randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { gatewayTokens, servers } from '../db/schema.js';

/*
 * Gateway tokens (docs/gateway.md, Over HTTP): one per server, shown once when made, kept
 * as a sha256. A token is 32 random bytes, so a plain hash (no salt, no stretching) is
 * enough: nothing guessable is hashed.
 */

/** A prefix that says what a leaked token is, for secret scanners and for people. */
const PREFIX = 'mcpdg_';

export function hashGatewayToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Makes a new token for the server, replacing its previous one, and returns it (once). */
export async function issueGatewayToken(db: Database, serverId: number): Promise<string> {
  const token = PREFIX + randomBytes(32).toString('base64url');
  const tokenHash = hashGatewayToken(token);
  await db
    .insert(gatewayTokens)
    .values({ serverId, tokenHash })
    .onConflictDoUpdate({
      target: gatewayTokens.serverId,
      set: { tokenHash, createdAt: new Date() },
    });
  return token;
}

/**
 * The server `name` whose token `token` is, or null. Looked up by hash: comparing hashes
 * in the database tells an attacker nothing about the token.
 */
export async function serverOfGatewayToken(
  db: Database,
  name: string,
  token: string,
): Promise<number | null> {
  const [row] = await db
    .select({ id: servers.id })
    .from(gatewayTokens)
    .innerJoin(servers, eq(servers.id, gatewayTokens.serverId))
    .where(and(eq(servers.name, name), eq(gatewayTokens.tokenHash, hashGatewayToken(token))));
  return row?.id ?? null;
}
