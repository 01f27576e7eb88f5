import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { DriftError } from '../errors.js';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE } from '../private-files.js';
import { TOKEN_FILE } from './console-token.js';
import { LOGIN_CODE_SECONDS } from './session.js';

/*
 * How `mcp-drift console-url` finds the running serve: serve writes the address of its
 * listener to MCP_DRIFT_HOME/console-url at start (it may have taken a free port) and removes
 * it when it stops. Login codes live only in that process's memory (session.ts), so the
 * command asks it for a fresh one over HTTP with the console token, as any API client would;
 * no code ever sits in a file.
 */

export const ADDRESS_FILE = 'console-url';

function addressFile(config: Config): string {
  return path.join(path.resolve(config.MCP_DRIFT_HOME), ADDRESS_FILE);
}

/** Serve's part: where its console answers, for console-url. */
export function writeConsoleAddress(config: Config, url: string): void {
  // With CONSOLE_TOKEN and PostgreSQL, nothing else may have made the home.
  ensurePrivateDirectory(config.MCP_DRIFT_HOME);
  writeFileSync(addressFile(config), `${url}\n`, { mode: PRIVATE_FILE_MODE });
}

/** At stop, unless another serve on this home has written its own address since. */
export function removeConsoleAddress(config: Config, url: string): void {
  try {
    if (readFileSync(addressFile(config), 'utf8').trim() === url) rmSync(addressFile(config));
  } catch {
    // Gone already: nothing to remove.
  }
}

/** The login link line serve prints at every start, and console-url prints on demand. */
export function loginLinkLine(url: string, code: string, tokenFile: string | null): string {
  return (
    `console: ${url}/?token=${code} (a login link that works once, for ` +
    `${LOGIN_CODE_SECONDS / 60} minutes; mcp-drift console-url prints a new one; or log in ` +
    `with the token ${tokenFile ? `in ${tokenFile}` : 'of CONSOLE_TOKEN'})`
  );
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A fresh login link from the serve running on this home, as the line serve prints. */
export async function freshLoginLink(config: Config): Promise<string> {
  const home = path.resolve(config.MCP_DRIFT_HOME);
  const url = readOrNull(addressFile(config));
  if (url === null) {
    throw new DriftError(
      'REMOTE_UNREACHABLE',
      `no mcp-drift serve is running on ${home} (no ${ADDRESS_FILE} file there): start one with mcp-drift serve, which prints a login link as it starts`,
    );
  }
  const tokenFile = config.CONSOLE_TOKEN === undefined ? path.join(home, TOKEN_FILE) : null;
  const token = tokenFile === null ? config.CONSOLE_TOKEN! : readOrNull(tokenFile);
  if (token === null) {
    throw new DriftError(
      'CONFIG_INVALID',
      `no console token in ${tokenFile}: set CONSOLE_TOKEN to the one serve uses`,
    );
  }
  let response: Response;
  try {
    response = await fetch(`${url}/api/v1/login-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-mcp-drift-actor': 'console-url' },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new DriftError(
      'REMOTE_UNREACHABLE',
      `no mcp-drift serve answers at ${url} (named by ${addressFile(config)}; a serve that was killed leaves it behind): start one with mcp-drift serve`,
      { cause: error },
    );
  }
  if (response.status === 401) {
    throw new DriftError(
      'CONFIG_INVALID',
      `the serve at ${url} refused the console token ${tokenFile ? `in ${tokenFile}` : 'of CONSOLE_TOKEN'}: run console-url with the CONSOLE_TOKEN serve was started with`,
    );
  }
  const body = (await response.json().catch(() => null)) as { code?: unknown } | null;
  if (!response.ok || typeof body?.code !== 'string') {
    throw new DriftError(
      'REMOTE_PROTOCOL',
      `the serve at ${url} gave no login link (HTTP ${response.status})`,
    );
  }
  return loginLinkLine(url, body.code, tokenFile);
}
