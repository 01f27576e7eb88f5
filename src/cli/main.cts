#!/usr/bin/env node
// CommonJS under verbatimModuleSyntax: TypeScript's form of require().
import fs = require('node:fs');
import path = require('node:path');
import url = require('node:url');

/*
 * The executable. `--help`, `help COMMAND`, `COMMAND --help` and `--version` are answered
 * from the pages the build rendered with commander (dist/cli/help.json, see help-pages.ts),
 * so that asking for help costs about what starting node does: this file is CommonJS and
 * loads nothing but node's own modules. Anything else loads the program (run-cli.ts).
 * In a source checkout without a build (`npm run dev`), run-cli.ts answers everything.
 */

interface HelpFile {
  version: string;
  /** By command path, as typed: '' for the program, 'server add'. */
  pages: Record<string, string>;
}

function readHelp(): HelpFile | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, 'help.json'), 'utf8')) as HelpFile;
  } catch {
    return undefined;
  }
}

/** The text commander would print for this request, when it is only a request for help. */
function answer(args: readonly string[], help: HelpFile): string | undefined {
  // As run-cli.ts reads a command line: --verbose may stand anywhere and changes no page.
  const own = args.filter((arg) => arg !== '--verbose');
  if (own.length === 1 && (own[0] === '--version' || own[0] === '-V')) return `${help.version}\n`;
  const last = own.at(-1);
  if (last === '--help' || last === '-h') return help.pages[own.slice(0, -1).join(' ')];
  if (own[0] === 'help') return help.pages[own.slice(1).join(' ')];
  return undefined;
}

const args = process.argv.slice(2);
const help = args.includes('--') ? undefined : readHelp();
const page = help && answer(args, help);
if (page !== undefined) {
  process.stdout.write(page);
} else {
  void import(url.pathToFileURL(path.join(__dirname, 'run-cli.mjs')).href);
}
