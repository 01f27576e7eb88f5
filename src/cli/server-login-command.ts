import { spawn } from 'node:child_process';
import { loginToServer } from '../registry/server-login.js';
import type { OAuthStatus } from '../registry/oauth-tokens-repo.js';
import type { CommandRun } from './command-run.js';
import type { Environment } from '../config/load.js';
import { printJson, printLine } from './output.js';
import { cliStreams } from './streams.js';
import { terminalSafeOutput } from '../text/terminal-text.js';

/*
 * `server login NAME` (docs/oauth.md): prints the authorization URL on stderr (stdout keeps
 * the result), opens it in a browser when there is a desktop to open it on, and waits for
 * the browser to come back to a loopback redirect.
 */

export async function serverLoginCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const ctx = await run.context();
  const status = await loginToServer(name, {
    config: ctx.config,
    env: ctx.env,
    signal: ctx.signal,
    withDatabase: (fn) => ctx.withDatabase((db) => fn(db)),
    onAuthorizationUrl: (url) => {
      cliStreams().stderr.write(
        terminalSafeOutput(`Open this URL in a browser to log in to ${name}:\n\n  ${url}\n\n`),
      );
      if (run.opts.browser !== false && hasDesktop(ctx.env)) openInBrowser(url);
    },
  });
  if (run.opts.json) return printJson({ server: name, ...statusJson(status) });
  printLine(
    `logged in to ${name}${status.expiresAt ? `; the access token expires at ${status.expiresAt.toISOString()} and is refreshed before then` : ''}`,
  );
}

function statusJson(status: OAuthStatus) {
  return {
    state: status.state,
    authorizationServer: status.authorizationServer,
    scope: status.scope,
    expiresAt: status.expiresAt?.toISOString() ?? null,
  };
}

/** A person at a desktop session, at a terminal: not a test, CI or a server over ssh. */
function hasDesktop(env: Environment): boolean {
  const display = env['DISPLAY'] || env['WAYLAND_DISPLAY'] || process.platform === 'darwin';
  const { stdin, stderr } = cliStreams();
  return Boolean(display) && stdin.isTTY === true && stderr.isTTY === true;
}

function openInBrowser(url: string): void {
  const opener =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}
