import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { CHANNELS, DELIVERY_STATUSES } from '../vocabulary/channels.js';
import { REFUSAL_REASONS } from '../vocabulary/gateway-policies.js';
import { IMPORT_SOURCES } from '../vocabulary/hosts.js';
import { OUTCOMES, PROTOCOL_ERAS, TRIGGERS } from '../vocabulary/observations.js';
import { ACTION_SOURCES, APPROVERS, OPERATOR_ACTIONS } from '../vocabulary/operator-actions.js';
import { CHANGE_SEVERITIES, SEVERITIES } from '../vocabulary/severities.js';
import { OUTAGE_KINDS } from '../vocabulary/outage-kinds.js';
import { OAUTH_GRANTS, OAUTH_STATES, type OAuthSettings } from '../vocabulary/oauth-grants.js';
import type { SurfaceSummaries } from '../vocabulary/surfaces.js';
import { TRANSPORTS } from '../vocabulary/transports.js';
import { TRUST_LEVELS } from '../vocabulary/trust-levels.js';
import { storableJsonb, storableText } from './storable.js';

/*
 * The whole data model of docs/design.md §2–§10. Later work fills these tables; it should not
 * need to reshape them. Text columns with a fixed vocabulary carry CHECK constraints so a
 * bug cannot store a value the rest of the code does not know.
 */

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const at = (name: string) => timestamp(name, { withTimezone: true });

/**
 * The CHECK that keeps a vocabulary column to its values. The values are passed in, not read
 * from the column: drizzle fills a column's enumValues only after the table callback runs.
 * They are the constants of src/vocabulary/, never input, so writing them raw is safe.
 */
const oneOf = (name: string, column: AnyPgColumn, values: readonly string[]) =>
  check(name, sql`${column} in (${sql.raw(values.map((value) => `'${value}'`).join(', '))})`);

/** A registered MCP endpoint. Header and env values may be `${VAR}` references. */
export const servers = pgTable(
  'servers',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    transport: text('transport', { enum: TRANSPORTS }).notNull(),
    command: text('command'),
    args: jsonb('args').$type<string[]>().notNull().default([]),
    env: jsonb('env').$type<Record<string, string>>().notNull().default({}),
    cwd: text('cwd'),
    url: text('url'),
    headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
    trust: text('trust', { enum: TRUST_LEVELS }).notNull().default('untrusted'),
    /** null: the service's DEFAULT_SCHEDULE. */
    schedule: text('schedule'),
    notify: jsonb('notify').$type<string[]>().notNull().default([]),
    /** A Slack incoming-webhook URL for this server's alerts, beside SLACK_WEBHOOK_URL. */
    slackUrl: text('slack_url'),
    /** A webhook URL for this server's alerts, beside WEBHOOK_URL. */
    webhookUrl: text('webhook_url'),
    /** Keep a held session for a stdio server too (http/sse are always held). */
    hold: boolean('hold').notNull().default(false),
    enabled: boolean('enabled').notNull().default(true),
    /** Per-server override of ALERT_MIN_SEVERITY; null: the global one. */
    alertMinSeverity: text('alert_min_severity', { enum: SEVERITIES }),
    /** Learned on first connect, so that stdio servers are not spawned twice per probe. */
    protocolEra: text('protocol_era', { enum: PROTOCOL_ERAS }),
    /** Behind OAuth (docs/oauth.md): grant, client id, `${VAR}` secret reference, scopes. */
    oauth: jsonb('oauth').$type<OAuthSettings>(),
    /** Other client identities (`NAME/VERSION`) each probe also lists as (docs/design.md §4). */
    alsoAs: jsonb('also_as').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
    /** Bumped on every edit: the supervisor re-reads servers changed since its last look. */
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check(
      'servers_transport_fields',
      sql`(${t.transport} = 'stdio' and ${t.command} is not null and ${t.url} is null)
        or (${t.transport} in ('http', 'sse') and ${t.url} is not null and ${t.command} is null)`,
    ),
    oneOf('servers_transport', t.transport, TRANSPORTS),
    oneOf('servers_trust', t.trust, TRUST_LEVELS),
    oneOf('servers_alert_min_severity', t.alertMinSeverity, SEVERITIES),
    oneOf('servers_protocol_era', t.protocolEra, PROTOCOL_ERAS),
    check(
      'servers_oauth',
      sql`${t.oauth} is null or (${t.transport} in ('http', 'sse') and ${t.oauth}->>'grant' in (${sql.raw(OAUTH_GRANTS.map((grant) => `'${grant}'`).join(', '))}))`,
    ),
  ],
);

/**
 * A server's OAuth tokens (docs/oauth.md). Token and client columns hold values sealed with
 * AES-256-GCM (src/token-cipher.ts), never plaintext; the rest is what `server show` may say.
 */
export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    serverId: integer('server_id')
      .primaryKey()
      .references(() => servers.id, { onDelete: 'cascade' }),
    state: text('state', { enum: OAUTH_STATES }).notNull(),
    authorizationServer: text('authorization_server'),
    scope: text('scope'),
    expiresAt: at('expires_at'),
    /** Sealed. */
    accessToken: text('access_token'),
    /** Sealed. */
    refreshToken: text('refresh_token'),
    /** Sealed JSON: a dynamically registered client (its id, and its secret if it has one). */
    clientInformation: text('client_information'),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [oneOf('oauth_tokens_state', t.state, OAUTH_STATES)],
);

/**
 * Where a server registered by `server import` came from: the host config file and entry,
 * and a hash of what was imported, so that a later import can tell an entry it imported
 * before from a name clash, and an entry changed in the host's file since (both are
 * reported, not overwritten, unless `--update`). A server registered by hand has no row.
 */
export const serverImports = pgTable(
  'server_imports',
  {
    serverId: integer('server_id')
      .primaryKey()
      .references(() => servers.id, { onDelete: 'cascade' }),
    host: text('host', { enum: IMPORT_SOURCES }).notNull(),
    /** Absolute path of the config file. */
    sourcePath: text('source_path').notNull(),
    /** The entry's name in that file, before normalization and --prefix. */
    entryName: text('entry_name').notNull(),
    /** sha256 of the canonical form of the registration the entry gave. */
    entryHash: text('entry_hash').notNull(),
    importedAt: at('imported_at').notNull().defaultNow(),
  },
  (t) => [oneOf('server_imports_host', t.host, IMPORT_SOURCES)],
);

/**
 * A server's gateway token (docs/gateway.md, Over HTTP): hosts present it as a Bearer token
 * at serve's `/gateway/NAME/mcp`. Only its sha256 is kept: the token is shown once, by
 * `server gateway-token NAME`, and a new one replaces it.
 */
export const gatewayTokens = pgTable('gateway_tokens', {
  serverId: integer('server_id')
    .primaryKey()
    .references(() => servers.id, { onDelete: 'cascade' }),
  /** Hex sha256 of the token. */
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: createdAt(),
});

/**
 * Calls a gateway inside serve refused (docs/gateway.md): listed on the server's console
 * page. The change is kept by id without a foreign key: pruning history keeps the record.
 */
export const gatewayRefusals = pgTable(
  'gateway_refusals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    at: at('at').notNull().defaultNow(),
    tool: text('tool').notNull(),
    reason: text('reason', { enum: REFUSAL_REASONS }).notNull(),
    changeId: bigint('change_id', { mode: 'number' }),
  },
  (t) => [
    index('gateway_refusals_server').on(t.serverId, t.id),
    oneOf('gateway_refusals_reason', t.reason, REFUSAL_REASONS),
  ],
);

/** A listing body, stored once per sha256 of its RFC 8785 canonical form. */
export const listings = pgTable('listings', {
  hash: text('hash').primaryKey(),
  /** The canonical JSON text of `{"tools":[…]}`, every key the server sent. */
  body: text('body').notNull(),
  /** tool name → sha256 of that tool's canonical form. */
  /** Keys are tool names: server text (see storable.ts). */
  toolHashes: storableJsonb<Record<string, string>>('tool_hashes').notNull(),
  toolCount: integer('tool_count').notNull(),
  /**
   * Each surface's hash and item count (docs/design.md §2), so that a change says which
   * surfaces moved without reading two bodies; null for a listing stored before this was
   * kept (read from its body then).
   */
  surfaces: jsonb('surfaces').$type<SurfaceSummaries>(),
  byteSize: integer('byte_size').notNull(),
  createdAt: createdAt(),
});

/**
 * A run of observations: consecutive attempts to list a server with one outcome (the same
 * listing, or the same error), collapsed into one row. A new row starts only when the
 * outcome changes; an unchanged attempt bumps `count`, `last_seen_at` and its trigger's
 * last time. The row keeps the id, `started_at` and `trigger` of the run's first attempt
 * (a change points at the attempt that saw its new listing, always a run's first), and
 * the descriptive fields (duration, protocol version, server info…) of its latest.
 * A failed attempt is an error run, never an empty listing.
 */
export const observations = pgTable(
  'observations',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    /** When the run's first attempt started. */
    startedAt: at('started_at').notNull(),
    /** The latest attempt's duration. */
    durationMs: integer('duration_ms').notNull(),
    /** How the run's first attempt was triggered. */
    trigger: text('trigger', { enum: TRIGGERS }).notNull(),
    outcome: text('outcome', { enum: OUTCOMES }).notNull(),
    listingHash: text('listing_hash').references(() => listings.hash),
    errorCode: text('error_code'),
    // Server text from here on (see storable.ts): a reason quotes the server's own words.
    errorMessage: storableText('error_message'),
    protocolVersion: storableText('protocol_version'),
    serverInfo: storableJsonb<Record<string, unknown>>('server_info'),
    capabilities: storableJsonb<Record<string, unknown>>('capabilities'),
    /** 2026-07-28 list results only. */
    ttlMs: bigint('ttl_ms', { mode: 'number' }),
    cacheScope: storableText('cache_scope'),
    pages: integer('pages'),
    workerId: text('worker_id'),
    /** When the run's latest attempt started. */
    lastSeenAt: at('last_seen_at').notNull(),
    /** Attempts in the run. */
    count: integer('count').notNull().default(1),
    /** Per trigger, when the run's latest attempt of that trigger started; null: none. */
    lastPollAt: at('last_poll_at'),
    lastNotificationAt: at('last_notification_at'),
    lastStartupAt: at('last_startup_at'),
    lastManualAt: at('last_manual_at'),
  },
  (t) => [
    index('observations_server_started').on(t.serverId, t.startedAt.desc()),
    // A server's first successful listing is where its history starts (chainEnd), read on
    // every recording until its first change.
    index('observations_server_ok')
      .on(t.serverId, t.id)
      .where(sql`${t.outcome} = 'ok'`),
    // A server's latest run: what an unchanged attempt extends.
    index('observations_server_id').on(t.serverId, t.id),
    check(
      'observations_outcome_fields',
      sql`(${t.outcome} = 'ok' and ${t.listingHash} is not null)
        or (${t.outcome} = 'error' and ${t.listingHash} is null and ${t.errorMessage} is not null)`,
    ),
    oneOf('observations_trigger', t.trigger, TRIGGERS),
    oneOf('observations_outcome', t.outcome, OUTCOMES),
  ],
);

/**
 * Attempts recorded, by trigger, outcome and duration bucket (the index of the first of
 * PROBE_BUCKETS_MS at or above the duration; one past the last: longer), kept as they are
 * written so that /metrics never counts history. Cumulative: pruning history leaves them.
 */
export const observationCounts = pgTable(
  'observation_counts',
  {
    trigger: text('trigger', { enum: TRIGGERS }).notNull(),
    outcome: text('outcome', { enum: OUTCOMES }).notNull(),
    bucket: integer('bucket').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
    sumMs: bigint('sum_ms', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.trigger, t.outcome, t.bucket] }),
    oneOf('observation_counts_trigger', t.trigger, TRIGGERS),
    oneOf('observation_counts_outcome', t.outcome, OUTCOMES),
  ],
);

/** A server's transition from one listing to another. */
export const changes = pgTable(
  'changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    /**
     * The server's previous change (null for its first). Unique per server, so two
     * workers that observe the same transition cannot both append it: the chain of a
     * server's changes stays linear and each change is recorded once.
     */
    previousChangeId: bigint('previous_change_id', { mode: 'number' }),
    /**
     * The listing before; null only for a server's first change when it is its first
     * listing, recorded for content findings (poison on first sight, docs/change-chain.md).
     */
    fromHash: text('from_hash').references(() => listings.hash),
    toHash: text('to_hash')
      .notNull()
      .references(() => listings.hash),
    /** The observation that saw the new listing: the first of its run, whose id the run keeps. */
    observationId: bigint('observation_id', { mode: 'number' })
      .notNull()
      .references(() => observations.id),
    detectedAt: at('detected_at').notNull().defaultNow(),
    severity: text('severity', { enum: CHANGE_SEVERITIES }).notNull(),
    /** Whether a change notification reached the held session; null when none was held. */
    notificationSeen: boolean('notification_seen'),
    /** Stale-session exposure (docs/design.md §5): old listing first/last observed, ttl, scope. */
    exposure: storableJsonb<Record<string, unknown>>('exposure').notNull().default({}),
    /**
     * The drift from the approved baseline to this change's listing, graded as one change,
     * when that baseline is older than the listing before (docs/design.md §4, drift since
     * approval); null when the change starts from the baseline or none was set.
     */
    sinceBaseline: storableJsonb<SinceBaseline>('since_baseline'),
  },
  (t) => [
    unique('changes_server_previous').on(t.serverId, t.previousChangeId).nullsNotDistinct(),
    // Only a server's first change can start from no listing.
    check('changes_from_listing', sql`${t.fromHash} is not null or ${t.previousChangeId} is null`),
    oneOf('changes_severity', t.severity, CHANGE_SEVERITIES),
    index('changes_server_detected').on(t.serverId, t.detectedAt.desc()),
    // `history` finds the changes of a page of runs, and pruning the runs no change points at.
    index('changes_observation').on(t.observationId),
  ],
);

/** One interpreted difference within a change, with its interpretation record (§5). */
export const findings = pgTable(
  'findings',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    changeId: bigint('change_id', { mode: 'number' })
      .notNull()
      .references(() => changes.id, { onDelete: 'cascade' }),
    // Tool names, values and explanations are server text (see storable.ts).
    tool: storableText('tool'),
    kind: text('kind').notNull(),
    severity: text('severity', { enum: SEVERITIES }).notNull(),
    field: text('field'),
    before: storableJsonb<unknown>('before'),
    after: storableJsonb<unknown>('after'),
    explanation: storableText('explanation').notNull(),
    record: storableJsonb<Record<string, unknown>>('record').notNull(),
  },
  (t) => [
    index('findings_change').on(t.changeId),
    oneOf('findings_severity', t.severity, SEVERITIES),
  ],
);

/** The listing an operator approved (or the first one seen, until someone approves). */
export const baselines = pgTable(
  'baselines',
  {
    serverId: integer('server_id')
      .primaryKey()
      .references(() => servers.id, { onDelete: 'cascade' }),
    listingHash: text('listing_hash')
      .notNull()
      .references(() => listings.hash),
    approvedAt: at('approved_at').notNull().defaultNow(),
    approvedBy: text('approved_by', { enum: APPROVERS }).notNull(),
  },
  (t) => [oneOf('baselines_approved_by', t.approvedBy, APPROVERS)],
);

/**
 * An alerted change: written in the change's transaction (the outbox). What happens to it
 * is in its deliveries, one per channel and destination; an alert without any was
 * `undeliverable` (nobody to tell when it was queued). Its status is derived from them
 * (alertStatus in src/alerts/alerts-repo.ts), so it cannot disagree with them.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    changeId: bigint('change_id', { mode: 'number' })
      .notNull()
      .unique()
      .references(() => changes.id, { onDelete: 'cascade' }),
    severity: text('severity', { enum: SEVERITIES }).notNull(),
    createdAt: createdAt(),
    acknowledgedAt: at('acknowledged_at'),
  },
  (t) => [
    index('alerts_server').on(t.serverId, t.id),
    oneOf('alerts_severity', t.severity, SEVERITIES),
  ],
);

/**
 * One alert to one destination of one channel (an email address, a Slack incoming-webhook
 * URL, a webhook URL), sent and retried on its own: one refused recipient or a Slack outage
 * never holds back another delivery. A digest is sent as the message of its first delivery
 * to that destination; the deliveries that joined it point at it (`digest_of`).
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    alertId: bigint('alert_id', { mode: 'number' })
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    /** The alert's server, for finding the digest a new delivery joins. */
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: CHANNELS }).notNull(),
    destination: text('destination').notNull(),
    /** `cancelled`: the alert was acknowledged before this was delivered. */
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    /**
     * Fixed when queued and stable across retries and restarts: the email's Message-ID and
     * the X-Mcp-Drift-Delivery header, so a resent message is recognisably the same.
     */
    key: text('key').notNull().unique(),
    digestOf: bigint('digest_of', { mode: 'number' }),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** Not before this time: the digest window's end, then the retry backoff or a claim. */
    nextAttemptAt: at('next_attempt_at').notNull().defaultNow(),
    createdAt: createdAt(),
    deliveredAt: at('delivered_at'),
  },
  (t) => [
    index('deliveries_alert').on(t.alertId),
    index('deliveries_due')
      .on(t.channel, t.nextAttemptAt)
      .where(sql`${t.status} = 'pending' and ${t.digestOf} is null`),
    index('deliveries_server_pending')
      .on(t.serverId)
      .where(sql`${t.status} = 'pending'`),
    index('deliveries_digest')
      .on(t.digestOf)
      .where(sql`${t.digestOf} is not null`),
    oneOf('deliveries_channel', t.channel, CHANNELS),
    oneOf('deliveries_status', t.status, DELIVERY_STATUSES),
  ],
);

/**
 * The `serve` processes alive on this database: each beats every few seconds, and the
 * live ones split the servers between them (a worker with no lease yet still counts).
 */
export const workers = pgTable('workers', {
  id: text('id').primaryKey(),
  hostname: text('hostname').notNull(),
  pid: integer('pid').notNull(),
  startedAt: at('started_at').notNull().defaultNow(),
  heartbeatAt: at('heartbeat_at').notNull().defaultNow(),
});

/** Which `serve` process watches which server; taken over when it expires. */
export const workerLeases = pgTable('worker_leases', {
  serverId: integer('server_id')
    .primaryKey()
    .references(() => servers.id, { onDelete: 'cascade' }),
  workerId: text('worker_id').notNull(),
  acquiredAt: at('acquired_at').notNull().defaultNow(),
  expiresAt: at('expires_at').notNull(),
});

/** What a held session currently holds: the values long-lived host sessions gate on. */
export const heldSessions = pgTable('held_sessions', {
  serverId: integer('server_id')
    .primaryKey()
    .references(() => servers.id, { onDelete: 'cascade' }),
  workerId: text('worker_id').notNull(),
  connectedAt: at('connected_at').notNull(),
  listingHash: text('listing_hash').references(() => listings.hash),
  listedAt: at('listed_at'),
  lastNotificationAt: at('last_notification_at'),
  listChangedAdvertised: boolean('list_changed_advertised'),
});

/** A server being unreachable is recorded here, never as its tools being removed. */
export const outages = pgTable(
  'outages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    downAt: at('down_at').notNull(),
    upAt: at('up_at'),
    /** Quotes what the server said (see storable.ts). */
    reason: storableText('reason').notNull(),
    kind: text('kind', { enum: OUTAGE_KINDS }).notNull().default('connection'),
  },
  (t) => [
    oneOf('outages_kind', t.kind, OUTAGE_KINDS),
    // At most one open outage per server.
    uniqueIndex('outages_one_open')
      .on(t.serverId)
      .where(sql`${t.upAt} is null`),
  ],
);

/**
 * A server its worker will not watch because the registration cannot work in the service's
 * environment (a `${VAR}` that is not set): a configuration state, not an outage. Retrying
 * cannot help, since serve's environment is fixed for its life; the row goes when the
 * watcher stops (the registration was edited, or serve stops) or starts cleanly.
 */
export const serverConfigProblems = pgTable('server_config_problems', {
  serverId: integer('server_id')
    .primaryKey()
    .references(() => servers.id, { onDelete: 'cascade' }),
  problem: text('problem').notNull(),
  notedAt: at('noted_at').notNull().defaultNow(),
  workerId: text('worker_id').notNull(),
});

/**
 * What operators did (approve a baseline, acknowledge or retry an alert, enable or disable
 * a server), by whom and when, from the console, its API or the CLI. The server is kept by
 * name, without a foreign key: the record outlives a removed server.
 */
export const operatorActions = pgTable(
  'operator_actions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: at('at').notNull().defaultNow(),
    /** The name given at console login, `api`, or the CLI's operating-system user. */
    actor: text('actor').notNull(),
    via: text('via', { enum: ACTION_SOURCES }).notNull(),
    action: text('action', { enum: OPERATOR_ACTIONS }).notNull(),
    server: text('server'),
    /** What was acted on: the listing hash approved, the alert id, the server name. */
    subject: text('subject').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('operator_actions_server').on(t.server, t.id),
    oneOf('operator_actions_via', t.via, ACTION_SOURCES),
    oneOf('operator_actions_action', t.action, OPERATOR_ACTIONS),
  ],
);

export type ServerRow = typeof servers.$inferSelect;
export type ServerImportRow = typeof serverImports.$inferSelect;
export type NewServerRow = typeof servers.$inferInsert;
export type AlertRow = typeof alerts.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;
export type ChangeRow = typeof changes.$inferSelect;

/** A change's drift since the approved baseline (changes.since_baseline). */
export interface SinceBaseline {
  /** The approved listing the drift is measured from. */
  baselineHash: string;
  severity: (typeof CHANGE_SEVERITIES)[number];
  findings: number;
}
export type NewChangeRow = typeof changes.$inferInsert;
export type FindingRow = typeof findings.$inferSelect;

export type OAuthTokensRow = typeof oauthTokens.$inferSelect;
