import type { CommandContext } from './context.js';

/** What a command's code gets when it runs (see program.ts). */
export interface CommandRun {
  /** The command's arguments, in the order its usage names them. */
  args: (string | undefined)[];
  /** Flag values by commander's attribute name (`--fail-on` is `failOn`); absent: undefined. */
  opts: Record<string, unknown>;
  /** What followed a bare `--`, verbatim: a stdio server's command line. */
  rest: string[] | undefined;
  /**
   * Configuration, logger, shutdown signal and database access, loaded on first use: a
   * command that needs none of them (diff) never loads them. `quiet: false` for serve.
   */
  context(options?: { quiet?: boolean }): Promise<CommandContext>;
}

export type CommandAction = (run: CommandRun) => Promise<void>;
