import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { DriftError } from '../errors.js';

export const TOKEN_FILE = 'console-token';

export interface ConsoleToken {
  value: string;
  /** Where it came from: the CONSOLE_TOKEN setting, or the file in MCP_DRIFT_HOME. */
  source: 'CONSOLE_TOKEN' | 'file';
  file: string | null;
  /** Made by this call: the first start; serve prints the login URL this once. */
  generated: boolean;
  /** The file could be read by others, and was made private (0600) again. */
  madePrivate: boolean;
}

/**
 * The console token: CONSOLE_TOKEN when set, else the one kept in
 * MCP_DRIFT_HOME/console-token, made on first start (32 random bytes, base64url) with mode
 * 0600, as notebook servers keep theirs. Several `serve` processes sharing one PostgreSQL
 * with separate homes each have their own unless CONSOLE_TOKEN is set.
 */
export function consoleToken(config: Config): ConsoleToken {
  if (config.CONSOLE_TOKEN !== undefined) {
    return {
      value: config.CONSOLE_TOKEN,
      source: 'CONSOLE_TOKEN',
      file: null,
      generated: false,
      madePrivate: false,
    };
  }
  const home = path.resolve(config.MCP_DRIFT_HOME);
  const file = path.join(home, TOKEN_FILE);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const value = randomBytes(32).toString('base64url');
  try {
    // `wx`: a token another process wrote first is kept, not replaced.
    writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return { value, source: 'file', file, generated: true, madePrivate: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const madePrivate = (statSync(file).mode & 0o077) !== 0;
  if (madePrivate) chmodSync(file, 0o600);
  const kept = readFileSync(file, 'utf8').trim();
  if (kept.length < 16) {
    throw new DriftError(
      'CONFIG_INVALID',
      `the console token in ${file} is shorter than 16 characters; delete the file to have a new one made, or set CONSOLE_TOKEN`,
    );
  }
  return { value: kept, source: 'file', file, generated: false, madePrivate };
}
