#!/usr/bin/env node
import { DriftError, type DriftErrorCode } from '../errors.js';
import { scrubSecrets } from '../log.js';
import { alertsCommand } from './alerts-command.js';
import { baselineCommand } from './baseline-command.js';
import { changeCommand, changesCommand } from './changes-command.js';
import { checkCommand } from './check-command.js';
import type { CommandContext } from './context.js';
import { createContext } from './context.js';
import { diffCommand } from './diff-command.js';
import { historyCommand } from './history-command.js';
import { migrateCommand } from './migrate-command.js';
import { printLine } from './output.js';
import { serveCommand } from './serve-command.js';
import { serverCommand, serverUsage } from './server-command.js';

/** The one place errors become exit codes (design §7). */
const EXIT_CODES: Record<DriftErrorCode, number> = {
  USAGE: 2,
  INVALID_INPUT: 2,
  CONFIG_INVALID: 2,
  SERVER_NOT_FOUND: 3,
  SERVER_EXISTS: 3,
  NOT_FOUND: 3,
  DATABASE_UNREACHABLE: 4,
  DATABASE_BUSY: 4,
  REMOTE_UNREACHABLE: 4,
  REMOTE_TIMEOUT: 4,
  REMOTE_PROTOCOL: 4,
  MAIL_UNREACHABLE: 4,
  INTERRUPTED: 130,
  THRESHOLD_REACHED: 1,
  INTERNAL: 1,
};

/**
 * Every command must be gone within 5 s of SIGTERM/SIGINT; a second signal ends it at
 * once. Commands get the signal as an AbortSignal so that they close what they opened:
 * stdio servers run in process groups of their own and do not see the terminal's Ctrl-C.
 */
const SHUTDOWN_DEADLINE_MS = 5_000;

const USAGE = `usage:
mcp-drift serve                          run the service (migrates first)
mcp-drift migrate                        apply database migrations
${serverUsage}
mcp-drift check NAME [--fail-on LEVEL]   list now, diff against the baseline, print
mcp-drift diff BEFORE.json AFTER.json [--trust LEVEL] [--fail-on LEVEL]
                                         offline diff of two files, each a tools/list
                                         result ({"tools":[…]}) or a JSON array of tools
mcp-drift history NAME [--limit N]       observations, newest first, with their changes
mcp-drift changes [--server NAME] [--limit N] | change show ID
                                         recorded changes; one change with its findings'
                                         full interpretation records
mcp-drift alerts list [--status pending|sent|failed|undeliverable|acknowledged] | alerts ack ID
mcp-drift alerts retry ID | alerts test [--channel email|slack|webhook]
mcp-drift baseline show NAME | baseline approve NAME [--listing HASH]

Every listing command takes --json. --verbose prints stack traces of unexpected errors.
Configuration comes from the environment or a .env file; see README.md.`;

async function run(argv: string[], verbose: boolean): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    printLine(USAGE);
    return command === undefined ? 2 : 0;
  }
  const commands: Record<string, (ctx: CommandContext) => Promise<void>> = {
    server: (ctx) => serverCommand(ctx, rest),
    migrate: (ctx) => migrateCommand(ctx, rest),
    check: (ctx) => checkCommand(ctx, rest),
    diff: (ctx) => diffCommand(ctx, rest),
    history: (ctx) => historyCommand(ctx, rest),
    baseline: (ctx) => baselineCommand(ctx, rest),
    changes: (ctx) => changesCommand(ctx, rest),
    change: (ctx) => changeCommand(ctx, rest),
    alerts: (ctx) => alertsCommand(ctx, rest),
    serve: (ctx) => serveCommand(ctx, rest),
  };
  const handler = commands[command];
  try {
    if (!handler)
      throw new DriftError('USAGE', `unknown command "${command}"; run \`mcp-drift help\``);
    await handler(createContext({ quiet: command !== 'serve', signal: shutdownSignal() }));
    return 0;
  } catch (error) {
    return report(error, verbose);
  }
}

function report(error: unknown, verbose: boolean): number {
  // A server's error may quote a header or env value back (see redactFromLogs in log.ts).
  const write = (text: string) => process.stderr.write(scrubSecrets(text));
  if (error instanceof DriftError) {
    write(`mcp-drift: ${error.message}\n`);
    if (verbose && error.cause instanceof Error) write(`${error.cause.stack}\n`);
    return EXIT_CODES[error.code] ?? 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(`mcp-drift: unexpected error: ${message}\n`);
  if (verbose && error instanceof Error) write(`${error.stack}\n`);
  else write('mcp-drift: run again with --verbose for the stack trace\n');
  return 1;
}

function shutdownSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.stderr.write(`mcp-drift: second ${signal}, exiting now\n`);
      process.exit(130);
    }
    controller.abort();
    setTimeout(() => {
      process.stderr.write('mcp-drift: shutdown took longer than 5 s, exiting\n');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return controller.signal;
}

// --verbose may stand anywhere before a stdio server's `--`; after it, it belongs to that command.
const args = process.argv.slice(2);
const ownEnd = args.includes('--') ? args.indexOf('--') : args.length;
const verbose = args.slice(0, ownEnd).includes('--verbose');
const code = await run(
  args.filter((arg, index) => arg !== '--verbose' || index > ownEnd),
  verbose,
);
process.exit(code);
