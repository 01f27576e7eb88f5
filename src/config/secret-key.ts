import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DriftError } from '../errors.js';
import { redactFromLogs } from '../log-lines.js';
import { ensurePrivateDirectory, ensurePrivateFile, PRIVATE_FILE_MODE } from '../private-files.js';
import { KEY_BYTES, TokenCipher } from '../token-cipher.js';
import type { Config } from './schema.js';

export const KEY_FILE = 'secret-key';

/**
 * 32 bytes written as base64 (standard or url-safe) or 64 hex digits: what
 * `openssl rand -base64 32` or `openssl rand -hex 32` prints.
 */
export function parseKey(value: string, what: string): Buffer {
  const text = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text)
    ? Buffer.from(text, 'hex')
    : Buffer.from(text.replaceAll('+', '-').replaceAll('/', '_'), 'base64url');
  if (key.length !== KEY_BYTES) {
    throw new DriftError(
      'CONFIG_INVALID',
      `${what} must be 32 bytes as base64 or hex (openssl rand -base64 32)`,
    );
  }
  return key;
}

/**
 * The cipher for OAuth tokens at rest (docs/oauth.md): MCP_DRIFT_SECRET_KEY when set, else
 * MCP_DRIFT_HOME/secret-key, made on first use (32 random bytes, base64) with mode 0600.
 * MCP_DRIFT_SECRET_KEY_PREVIOUS (comma-separated) opens values sealed before a rotation.
 */
export function tokenCipher(config: Config): TokenCipher {
  redactFromLogs([
    config.MCP_DRIFT_SECRET_KEY,
    ...(config.MCP_DRIFT_SECRET_KEY_PREVIOUS ?? '').split(','),
  ]);
  const previous = (config.MCP_DRIFT_SECRET_KEY_PREVIOUS ?? '')
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => parseKey(part, 'MCP_DRIFT_SECRET_KEY_PREVIOUS'));
  if (config.MCP_DRIFT_SECRET_KEY !== undefined) {
    return new TokenCipher({
      current: parseKey(config.MCP_DRIFT_SECRET_KEY, 'MCP_DRIFT_SECRET_KEY'),
      previous,
    });
  }
  const home = path.resolve(config.MCP_DRIFT_HOME);
  const file = path.join(home, KEY_FILE);
  ensurePrivateDirectory(home);
  try {
    // `wx`: a key another process wrote first is kept, never replaced.
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, {
      mode: PRIVATE_FILE_MODE,
      flag: 'wx',
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  ensurePrivateFile(file);
  return new TokenCipher({ current: parseKey(readFileSync(file, 'utf8'), file), previous });
}
