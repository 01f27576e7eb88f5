import { CommanderError, type Command } from 'commander';
import { DriftError, type DriftErrorCode } from '../errors.js';
import { scrubSecrets } from '../log-lines.js';
import type { CommandContext } from './context.js';
import { terminalSafeJson, terminalSafeOutput } from '../text/terminal-text.js';
import type { Environment } from '../config/load.js';
import { jsonDocumentPrinted, resetJsonDocument } from './output.js';
import { cliStreams, withCliStreams, type CliStreams } from './streams.js';
import { buildProgram } from './program.js';

/** The one place errors become exit codes (docs/design.md §7). */
const EXIT_CODES: Record<DriftErrorCode, number> = {
  USAGE: 2,
  INVALID_INPUT: 2,
  CONFIG_INVALID: 2,
  SERVER_NOT_FOUND: 3,
  SERVER_EXISTS: 3,
  NOT_FOUND: 3,
  CONFLICT: 3,
  DATABASE_UNREACHABLE: 4,
  DATABASE_BUSY: 4,
  REMOTE_UNREACHABLE: 4,
  REMOTE_TIMEOUT: 4,
  REMOTE_PROTOCOL: 4,
  MAIL_UNREACHABLE: 4,
  NEEDS_LOGIN: 4,
  INTERRUPTED: 130,
  THRESHOLD_REACHED: 1,
  DECLINED: 1,
  INTERNAL: 1,
};

/** Commander's own ends: help or the version was printed, as asked. */
const PRINTED = new Set(['commander.helpDisplayed', 'commander.version']);

interface Invocation {
  /** The arguments up to a bare `--`, without --verbose. */
  own: string[];
  /** What followed the bare `--`: a stdio server's command line. */
  rest: string[] | undefined;
  verbose: boolean;
  json: boolean;
}

// --verbose may stand anywhere before a stdio server's `--`; after it, it belongs to that command.
function invocation(args: string[]): Invocation {
  const end = args.indexOf('--');
  const own = end < 0 ? args : args.slice(0, end);
  const flags = own.filter((arg) => arg !== '--verbose');
  return {
    own: flags,
    rest: end < 0 ? undefined : args.slice(end + 1),
    verbose: flags.length < own.length,
    json: own.includes('--json'),
  };
}

export interface RunOptions {
  /** Aborted when the command must stop (SIGINT/SIGTERM for the executable). */
  signal: AbortSignal;
  /** The environment the configuration is read from; the process's by default. */
  env?: Environment;
  /** Where the command reads and writes; the process's streams by default. */
  streams?: CliStreams;
}

/**
 * Runs `mcp-drift ARGS…` and resolves with its exit code; never rejects, never exits the
 * process (run-cli.ts does that for the executable).
 */
export function runCommand(args: string[], options: RunOptions): Promise<number> {
  const call = invocation(args);
  return options.streams
    ? withCliStreams(options.streams, () => run(call, options))
    : run(call, options);
}

async function run(call: Invocation, options: RunOptions): Promise<number> {
  resetJsonDocument();
  const { signal, env } = options;
  let context: Promise<CommandContext> | undefined;
  const program = buildProgram({
    rest: call.rest,
    context: (contextOptions) =>
      (context ??= import('./context.js').then(({ createContext }) =>
        createContext({ quiet: contextOptions?.quiet ?? true, signal, env }),
      )),
  });
  for (const command of commandsOf(program)) {
    // Commander prints help and the version itself; its errors are reported below, as ours.
    command.configureOutput({
      outputError: () => {},
      writeOut: (text) => cliStreams().stdout.write(text),
      writeErr: (text) => cliStreams().stderr.write(text),
    });
    command.exitOverride((error) => {
      throw PRINTED.has(error.code) || error.code === 'commander.help'
        ? error
        : new DriftError('USAGE', usageMessage(error, command));
    });
  }
  try {
    await program.parseAsync(helpRequest(program, call.own), { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // `mcp-drift` or `mcp-drift server` alone prints the help on stderr: bad usage.
      return PRINTED.has(error.code) || error.exitCode === 0 ? 0 : 2;
    }
    return report(error, call);
  }
}

/**
 * `mcp-drift help server add` is `mcp-drift server add --help`. For a name that is no
 * command, the names alone make commander say so and suggest the nearest one, where
 * `--help` would print the program's help instead.
 */
function helpRequest(program: Command, args: string[]): string[] {
  if (args[0] !== 'help') return args;
  const names = args.slice(1).filter((arg) => !arg.startsWith('-'));
  let at = program;
  for (const [index, name] of names.entries()) {
    const next = at.commands.find((command) => command.name() === name);
    if (!next) return names.slice(0, index + 1);
    at = next;
  }
  return [...names, '--help'];
}

function commandsOf(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commandsOf)];
}

/** `server add`, as a person types it. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Commander's message on one line, naming the command and where its help is. */
function usageMessage(error: CommanderError, command: Command): string {
  const path = pathOf(command);
  // The one way to give these two too many arguments is a stdio command without its `--`:
  // say that, rather than commander's "too many arguments".
  if (
    error.code === 'commander.excessArguments' &&
    (path === 'server add' || path === 'server edit')
  ) {
    const words = command.args.slice(1).join(' ');
    return `${path}: "${words}" looks like a stdio server's command: put -- before it, as in \`mcp-drift ${path} NAME --stdio -- CMD [ARGS…]\`; see \`mcp-drift ${path} --help\``;
  }
  const message = error.message
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\.$/, '');
  const stdioHint =
    error.code === 'commander.unknownOption' && (path === 'server add' || path === 'server edit')
      ? ' (if it is a flag of the stdio server’s command, put -- before the command)'
      : '';
  return `${path ? `${path}: ` : ''}${message}${stdioHint}; see \`mcp-drift ${path ? `${path} ` : ''}--help\``;
}

async function report(error: unknown, call: Invocation): Promise<number> {
  // A server's error may quote a header or env value back (see redactFromLogs), and hold
  // escape sequences meant for the terminal.
  const { stdout, stderr } = cliStreams();
  const write = (text: string) => stderr.write(terminalSafeOutput(scrubSecrets(text)));
  const known = error instanceof DriftError;
  const message = error instanceof Error ? error.message : String(error);
  if (known) write(`mcp-drift: ${message}\n`);
  else write(`mcp-drift: unexpected error: ${message}\n`);
  if (call.verbose) {
    const stack = known ? (error.cause as Error | undefined)?.stack : (error as Error).stack;
    if (stack) write(`${stack}\n`);
  } else if (!known) {
    write('mcp-drift: run again with --verbose for the stack trace\n');
  }
  const code: DriftErrorCode = known ? error.code : 'INTERNAL';
  // A pipeline reading --json learns why it failed. A command that printed its document
  // before failing (a reached --fail-on, `alerts test` with a channel down) said it there,
  // and stdout carries one document.
  if (call.json && !jsonDocumentPrinted()) {
    const document = { error: { code, message: scrubSecrets(message) } };
    stdout.write(terminalSafeJson(`${JSON.stringify(document, null, 2)}\n`));
  }
  return EXIT_CODES[code] ?? 1;
}
