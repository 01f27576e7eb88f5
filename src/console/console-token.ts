import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { DriftError } from '../errors.js';
import { ensurePrivateDirectory, ensurePrivateFile, PRIVATE_FILE_MODE } from '../private-files.js';

export const TOKEN_FILE = 'console-token';

export interface ConsoleToken {
  value: string;
  /** Where it came from: the CONSOLE_TOKEN setting, or the file in MCP_DRIFT_HOME. */
  source: 'CONSOLE_TOKEN' | 'file';
  file: string | null;
  /** The file could be read by others, and was made private (0600) again. */
  madePrivate: boolean;
  /** Entries of MCP_DRIFT_HOME made private because others could enter it (PostgreSQL's case). */
  homeMadePrivate: number;
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
      madePrivate: false,
      homeMadePrivate: 0,
    };
  }
  const home = path.resolve(config.MCP_DRIFT_HOME);
  const file = path.join(home, TOKEN_FILE);
  const homeMadePrivate = ensurePrivateDirectory(home);
  const value = randomBytes(32).toString('base64url');
  try {
    // `wx`: a token another process wrote first is kept, not replaced.
    writeFileSync(file, `${value}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return { value, source: 'file', file, madePrivate: false, homeMadePrivate };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const madePrivate = ensurePrivateFile(file);
  const kept = readFileSync(file, 'utf8').trim();
  if (kept.length < 16) {
    throw new DriftError(
      'CONFIG_INVALID',
      `the console token in ${file} is shorter than 16 characters; delete the file to have a new one made, or set CONSOLE_TOKEN`,
    );
  }
  return { value: kept, source: 'file', file, madePrivate, homeMadePrivate };
}
