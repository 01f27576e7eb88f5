import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { readFileSync } from 'node:fs';
import { DriftError } from '../errors.js';
import { CONFIG_FIELDS, parseConfig, type Config } from './schema.js';

export type Environment = Record<string, string | undefined>;

/**
 * The only reader of process.env (house style). `.env` in the working directory fills in
 * what the environment leaves unset; the real environment always wins.
 */
export function readEnvironment(
  cwd = process.cwd(),
  environment: Environment = process.env,
): Environment {
  let fromFile: Environment = {};
  try {
    fromFile = parseDotenv(readFileSync(path.join(cwd, '.env')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { ...fromFile, ...environment };
}

/** Validates the whole configuration at once and lists every problem, not just the first. */
export function loadConfig(env: Environment = readEnvironment()): Config {
  const input: Record<string, string | undefined> = Object.fromEntries(
    Object.keys(CONFIG_FIELDS).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const result = parseConfig(input);
  if (result.config === null) {
    throw new DriftError('CONFIG_INVALID', `invalid configuration: ${result.problems.join('; ')}`);
  }
  return result.config;
}
