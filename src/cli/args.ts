import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DriftError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed<O extends Options> {
  values: ReturnType<
    typeof parseArgs<{ options: O; strict: true; allowPositionals: true }>
  >['values'];
  positionals: string[];
  /** What came after a bare `--`, verbatim (a stdio server's command line). */
  rest: string[] | undefined;
}

/**
 * node:util parseArgs in strict mode, with its errors turned into one usage line that names
 * the command, so that every bad flag exits 2 with something a person can act on.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: string[],
  options: O,
): Parsed<O> {
  const terminator = argv.indexOf('--');
  const own = terminator < 0 ? argv : argv.slice(0, terminator);
  try {
    const { values, positionals } = parseArgs({
      args: own,
      options,
      strict: true,
      allowPositionals: true,
    });
    return { values, positionals, rest: terminator < 0 ? undefined : argv.slice(terminator + 1) };
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new DriftError('USAGE', `${command}: ${message}; see \`mcp-drift help\``);
  }
}

export function expectPositionals(
  command: string,
  positionals: string[],
  names: string[],
): string[] {
  if (positionals.length !== names.length) {
    const got =
      positionals.length > names.length
        ? `unexpected "${positionals[names.length]}"`
        : `missing ${names[positionals.length]}`;
    throw new DriftError(
      'USAGE',
      `${command}: ${got}; usage: mcp-drift ${command} ${names.join(' ')}`,
    );
  }
  return positionals;
}

/** A count or an id given on the command line: a positive whole number, or exit 2. */
export function positiveInteger(what: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new DriftError('USAGE', `invalid ${what} "${text}": give a positive whole number`);
  }
  return value;
}
