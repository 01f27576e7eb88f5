import type { Command } from 'commander';
import { buildProgram } from './program.js';
import { packageVersion } from './version.js';

/*
 * Every help page of the program, rendered by commander at build time into
 * dist/cli/help.json, which the executable (main.cts) prints without loading commander.
 * test/cli/cli-help.test.ts checks the pages against what commander prints at run time.
 */

export interface HelpPages {
  version: string;
  /** By command path, as typed: '' for the program, 'server add'. */
  pages: Record<string, string>;
}

export function helpPages(): HelpPages {
  const program = buildProgram({
    rest: undefined,
    context: () => Promise.reject(new Error('help pages run no command')),
  });
  const pages: Record<string, string> = {};
  const render = (command: Command, names: string[]) => {
    let text = '';
    // What `--help` prints: the help, then the texts added after it (the examples).
    command.configureOutput({ writeOut: (chunk) => (text += chunk) });
    command.outputHelp();
    pages[names.join(' ')] = text;
    for (const child of command.commands) render(child, [...names, child.name()]);
  };
  render(program, []);
  return { version: packageVersion(), pages };
}
