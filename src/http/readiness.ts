import { readFileSync } from 'node:fs';
import path from 'node:path';
import { latestAppliedMigration } from '../db/applied-migrations.js';
import type { Database } from '../db/client.js';
import { migrationsFolder } from '../db/migrate.js';
import type { Logger } from '../log.js';
import { describeDatabaseError, withTimeLimit } from '../time-limit.js';

export type Readiness = { ready: true } | { ready: false; reason: string };

interface JournalEntry {
  when: number;
  tag: string;
}

/** SQLSTATEs of a database where drizzle's migrations table does not exist yet. */
const NOT_MIGRATED = new Set(['42P01', '3F000']);

/**
 * `/readyz`: the database answers within the time limit and holds every migration this
 * build ships. drizzle applies the journal's migrations in order and records each one's
 * journal time in `created_at`, so a migration is pending exactly when its time is later
 * than the latest one recorded (the rule drizzle's own migrator uses).
 *
 * Concurrent checks share one query, so a probe storm during an outage does not queue
 * work behind a dead connection. State changes are logged once, not on every probe.
 */
export class ReadinessCheck {
  private readonly db: Database;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private journal: JournalEntry[] | undefined;
  private running: Promise<Readiness> | undefined;
  private last: Readiness | undefined;

  constructor(db: Database, options: { logger: Logger; timeoutMs?: number }) {
    this.db = db;
    this.logger = options.logger;
    this.timeoutMs = options.timeoutMs ?? 2_000;
  }

  check(): Promise<Readiness> {
    this.running ??= this.checkOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async checkOnce(): Promise<Readiness> {
    const result = await this.evaluate();
    if (!result.ready && (this.last === undefined || this.last.ready)) {
      this.logger.warn({ reason: result.reason }, 'not ready');
    } else if (result.ready && this.last !== undefined && !this.last.ready) {
      this.logger.info('ready again');
    }
    this.last = result;
    return result;
  }

  private async evaluate(): Promise<Readiness> {
    let latestApplied: number;
    try {
      latestApplied = await withTimeLimit(this.latestApplied(), this.timeoutMs, 'the database');
    } catch (error) {
      const code = sqlState(error);
      if (code !== undefined && NOT_MIGRATED.has(code)) {
        return { ready: false, reason: 'the database is not migrated; run mcp-drift migrate' };
      }
      return { ready: false, reason: `database unreachable: ${describeDatabaseError(error)}` };
    }
    const pending = this.readJournal().filter((entry) => entry.when > latestApplied);
    if (pending.length > 0) {
      const tags = pending.map((entry) => entry.tag).join(', ');
      return {
        ready: false,
        reason: `${pending.length} migration(s) pending (${tags}); run mcp-drift migrate`,
      };
    }
    return { ready: true };
  }

  private latestApplied(): Promise<number> {
    return latestAppliedMigration(this.db);
  }

  /** The journal of the migrations shipped with this build; it cannot change while running. */
  private readJournal(): JournalEntry[] {
    this.journal ??= (
      JSON.parse(readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
        entries: JournalEntry[];
      }
    ).entries;
    return this.journal;
  }
}

function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
