import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { oauthTokens } from '../db/schema.js';
import type { TokenCipher } from '../token-cipher.js';
import type { OAuthStateName } from '../vocabulary/oauth-grants.js';

/*
 * A server's OAuth tokens at rest (docs/oauth.md). Tokens and client information are sealed
 * here, on their way in, and opened here, on their way out: no other code sees the
 * ciphertext, and nothing that reads the status gets a token.
 */

export interface StoredTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scope: string | null;
  authorizationServer: string | null;
}

/** What may be shown: never a token. */
export interface OAuthStatus {
  state: OAuthStateName;
  authorizationServer: string | null;
  scope: string | null;
  expiresAt: Date | null;
  updatedAt: Date;
}

/** The additional data each sealed value is bound to: its server and its column. */
const context = (serverId: number, column: string) => `server ${serverId} ${column}`;

export async function saveTokens(
  db: Database,
  cipher: TokenCipher,
  serverId: number,
  tokens: StoredTokens,
): Promise<void> {
  const values = {
    state: 'authorized' as const,
    authorizationServer: tokens.authorizationServer,
    scope: tokens.scope,
    expiresAt: tokens.expiresAt,
    accessToken: cipher.seal(tokens.accessToken, context(serverId, 'access_token')),
    refreshToken:
      tokens.refreshToken === null
        ? null
        : cipher.seal(tokens.refreshToken, context(serverId, 'refresh_token')),
    updatedAt: sql`now()`,
  };
  await db
    .insert(oauthTokens)
    .values({ serverId, ...values })
    .onConflictDoUpdate({ target: oauthTokens.serverId, set: values });
}

export async function loadTokens(
  db: Database,
  cipher: TokenCipher,
  serverId: number,
): Promise<StoredTokens | null> {
  const [row] = await db.select().from(oauthTokens).where(eq(oauthTokens.serverId, serverId));
  if (!row || row.state !== 'authorized' || row.accessToken === null) return null;
  return {
    accessToken: cipher.open(row.accessToken, context(serverId, 'access_token')),
    refreshToken:
      row.refreshToken === null
        ? null
        : cipher.open(row.refreshToken, context(serverId, 'refresh_token')),
    expiresAt: row.expiresAt,
    scope: row.scope,
    authorizationServer: row.authorizationServer,
  };
}

/** A dynamically registered client, sealed as JSON (it may carry a client secret). */
export async function saveClientInformation(
  db: Database,
  cipher: TokenCipher,
  serverId: number,
  information: Record<string, unknown>,
): Promise<void> {
  const sealed = cipher.seal(JSON.stringify(information), context(serverId, 'client_information'));
  await db
    .insert(oauthTokens)
    .values({ serverId, state: 'needs_login', clientInformation: sealed })
    .onConflictDoUpdate({
      target: oauthTokens.serverId,
      set: { clientInformation: sealed, updatedAt: sql`now()` },
    });
}

export async function loadClientInformation(
  db: Database,
  cipher: TokenCipher,
  serverId: number,
): Promise<Record<string, unknown> | null> {
  const [row] = await db
    .select({ sealed: oauthTokens.clientInformation })
    .from(oauthTokens)
    .where(eq(oauthTokens.serverId, serverId));
  if (!row?.sealed) return null;
  return JSON.parse(cipher.open(row.sealed, context(serverId, 'client_information'))) as Record<
    string,
    unknown
  >;
}

/**
 * The refresh was refused: the tokens are dropped, the client registration kept. True when
 * this call moved the server from `authorized` (or no row) to `needs_login`: of several
 * connections refused at once, exactly one sees true, so one alert goes out.
 */
export async function markNeedsLogin(db: Database, serverId: number): Promise<boolean> {
  const values = {
    state: 'needs_login' as const,
    accessToken: null,
    refreshToken: null,
    expiresAt: null,
    updatedAt: sql`now()`,
  };
  const changed = await db
    .insert(oauthTokens)
    .values({ serverId, ...values })
    .onConflictDoUpdate({
      target: oauthTokens.serverId,
      set: values,
      setWhere: sql`${oauthTokens.state} <> 'needs_login'`,
    })
    .returning({ serverId: oauthTokens.serverId });
  return changed.length > 0;
}

export async function oauthStatus(db: Database, serverId: number): Promise<OAuthStatus | null> {
  const [row] = await db
    .select({
      state: oauthTokens.state,
      authorizationServer: oauthTokens.authorizationServer,
      scope: oauthTokens.scope,
      expiresAt: oauthTokens.expiresAt,
      updatedAt: oauthTokens.updatedAt,
    })
    .from(oauthTokens)
    .where(eq(oauthTokens.serverId, serverId));
  return row ?? null;
}

/**
 * Seals every stored value again with the current key (after a rotation, docs/oauth.md),
 * opening it with whichever configured key sealed it. Returns how many rows changed.
 */
export async function resealTokens(db: Database, cipher: TokenCipher): Promise<number> {
  const rows = await db.select().from(oauthTokens);
  let changed = 0;
  for (const row of rows) {
    const columns = {
      accessToken: row.accessToken,
      refreshToken: row.refreshToken,
      clientInformation: row.clientInformation,
    };
    const names = {
      accessToken: 'access_token',
      refreshToken: 'refresh_token',
      clientInformation: 'client_information',
    } as const;
    const set: Partial<Record<keyof typeof columns, string>> = {};
    for (const key of Object.keys(columns) as (keyof typeof columns)[]) {
      const sealed = columns[key];
      if (sealed === null || !cipher.isStale(sealed)) continue;
      const where = context(row.serverId, names[key]);
      set[key] = cipher.seal(cipher.open(sealed, where), where);
    }
    if (Object.keys(set).length === 0) continue;
    await db.update(oauthTokens).set(set).where(eq(oauthTokens.serverId, row.serverId));
    changed += 1;
  }
  return changed;
}
