import { freshLoginLink } from '../console/console-address.js';
import type { CommandRun } from './command-run.js';
import { printLine } from './output.js';

/** A fresh one-time login link from the serve running on this MCP_DRIFT_HOME. */
export async function consoleUrlCommand(run: CommandRun): Promise<void> {
  const ctx = await run.context();
  printLine(await freshLoginLink(ctx.config));
}
