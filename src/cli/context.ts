import { userInfo } from 'node:os';
import type { Actor } from '../audit/operator-actions-repo.js';
import { loadConfig, readEnvironment, type Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database, DatabaseHandle } from '../db/client.js';
import { redactFromLogs, urlPasswords } from '../log-lines.js';
import type { Logger } from '../log.js';
import { warnMadePrivate } from '../private-files.js';
import { cliStreams, usingProcessStreams } from './streams.js';

/** What every command that needs more than its flags gets (see CommandRun.context). */
export interface CommandContext {
  config: Config;
  env: Environment;
  /**
   * The logger, loaded on first use: most commands write no log line, and pino with its
   * dependencies is a fifth of what a registry command would otherwise load.
   */
  logger(): Promise<Logger>;
  /** Who the CLI's approvals and acknowledgements are recorded as: the operating-system user. */
  actor: Actor;
  /** Aborted by SIGINT/SIGTERM: stop, close what is open, and return. */
  signal: AbortSignal;
  /** Opens the database for the duration of `fn` and always closes it. */
  withDatabase<T>(fn: (db: Database, handle: DatabaseHandle) => Promise<T>): Promise<T>;
}

/**
 * `quiet`: one-shot commands log warnings only unless LOG_LEVEL is set, so that a person
 * at a terminal sees the command's output rather than a stream of JSON.
 */
export function createContext(options: {
  quiet: boolean;
  signal: AbortSignal;
  /** The environment to read; the process's when absent. */
  env?: Environment;
}): CommandContext {
  const env = readEnvironment(process.cwd(), options.env);
  const config = loadConfig(env);
  const level = options.quiet && !env.LOG_LEVEL ? 'warn' : config.LOG_LEVEL;
  // Now, not with the logger: an error message printed or a reason stored masks them too.
  redactFromLogs([config.DATABASE_URL, config.SMTP_URL].flatMap(urlPasswords));
  // `auto`: a person reads a terminal, a program reads a pipe.
  const format =
    config.LOG_FORMAT === 'auto'
      ? cliStreams().stderr.isTTY
        ? 'pretty'
        : 'json'
      : config.LOG_FORMAT;
  // The process's stderr is written as file descriptor 2 (log.ts); other streams as given.
  const stderr = usingProcessStreams() ? undefined : cliStreams().stderr;
  let logger: Promise<Logger> | undefined;
  const getLogger = () =>
    (logger ??= import('../log.js').then(({ createLogger }) =>
      createLogger(level, format, [], stderr),
    ));
  return {
    config,
    env,
    logger: getLogger,
    actor: { name: systemUser(), via: 'cli' },
    signal: options.signal,
    async withDatabase(fn) {
      // Loaded here, not above: lock and verify take a context and never open a database.
      const { openDatabase } = await import('../db/client.js');
      const handle = await openDatabase({
        databaseUrl: config.DATABASE_URL,
        home: config.MCP_DRIFT_HOME,
      });
      if (handle.madePrivate > 0) {
        warnMadePrivate(await getLogger(), config.MCP_DRIFT_HOME, handle.madePrivate);
      }
      try {
        return await fn(handle.db, handle);
      } finally {
        await handle.close();
      }
    },
  };
}

function systemUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A container user without a passwd entry has a uid and no name.
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}
