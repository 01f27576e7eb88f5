import { recordAction, type Actor } from '../audit/operator-actions-repo.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import { usesLogin } from './oauth-token-store.js';
import { oauthStatus } from './oauth-tokens-repo.js';
import { buildSpec, changesAnything, type RegistrationInput } from './registration-input.js';
import type { ServerSpec } from './server-spec.js';
import { serverView, type ServerView, type ViewDefaults } from './server-view.js';
import {
  getServer,
  insertServer,
  listServers,
  removeServer,
  setServerEnabled,
  specOf,
  updateServer,
} from './servers-repo.js';

/*
 * The registry's use cases: each checks its input, writes through servers-repo, and
 * answers with views (secrets masked), which a caller prints or serves as they are.
 */

/** `spec` comes from buildSpec, which checks a registration before any database is opened. */
export async function registerServer(
  db: Database,
  spec: ServerSpec,
  defaults: ViewDefaults,
): Promise<ServerView> {
  return serverView(await insertServer(db, spec), defaults);
}

/** Changes the fields the input gives; the others keep their values. */
export async function editServer(
  db: Database,
  name: string,
  input: RegistrationInput,
  defaults: ViewDefaults,
  options: { beforeWrite?: (spec: ServerSpec) => Promise<void> } = {},
): Promise<ServerView> {
  if (!changesAnything(input)) {
    throw new DriftError(
      'USAGE',
      `server edit ${name}: nothing to change; give flags as for server add`,
    );
  }
  const current = await getServer(db, name);
  const spec = buildSpec(current.name, input, specOf(current));
  await options.beforeWrite?.(spec);
  return serverView(await updateServer(db, current.name, spec), defaults);
}

export async function listServerViews(db: Database, defaults: ViewDefaults): Promise<ServerView[]> {
  return (await listServers(db)).map((row) => serverView(row, defaults));
}

export async function showServer(
  db: Database,
  name: string,
  defaults: ViewDefaults,
): Promise<ServerView> {
  const row = await getServer(db, name);
  const view = serverView(row, defaults);
  if (!usesLogin(row)) return view;
  const status = await oauthStatus(db, row.id);
  view.login = status && {
    state: status.state,
    authorizationServer: status.authorizationServer,
    scope: status.scope,
    expiresAt: status.expiresAt?.toISOString() ?? null,
  };
  return view;
}

/** Removes the server and its history; answers with the name removed. */
export async function unregisterServer(db: Database, name: string): Promise<{ removed: string }> {
  return { removed: (await removeServer(db, name)).name };
}

/** With an `actor`, recorded (operator_actions) in the same transaction. */
export async function enableServer(
  db: Database,
  name: string,
  enabled: boolean,
  defaults: ViewDefaults,
  options: { actor?: Actor } = {},
): Promise<ServerView> {
  return db.transaction(async (tx) => {
    const row = await setServerEnabled(tx, name, enabled);
    if (options.actor) {
      await recordAction(tx, options.actor, {
        action: enabled ? 'server.enable' : 'server.disable',
        server: row.name,
        subject: row.name,
      });
    }
    return serverView(row, defaults);
  });
}
