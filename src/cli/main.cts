#!/usr/bin/env node
// CommonJS under verbatimModuleSyntax: TypeScript's form of require().
import fs = require('node:fs');
import Module = require('node:module');
import path = require('node:path');
import url = require('node:url');
import vm = require('node:vm');

/*
 * The executable. `--help`, `help COMMAND`, `COMMAND --help` and `--version` are answered
 * from the pages the build rendered with commander (dist/cli/help.json, see help-pages.ts),
 * so that asking for help costs about what starting node does: this file is CommonJS and
 * loads nothing but node's own modules. Anything else loads the program (run-cli.ts):
 * a command that opens the database from the file the build made for it alone, with its
 * code cache (oneFile, see scripts/build.mjs), any other from the split bundle (run-cli.mjs).
 * In a source checkout without a build (`npm run dev`), run-cli.ts answers everything.
 */

interface HelpFile {
  version: string;
  /** By command path, as typed: '' for the program, 'server add'. */
  pages: Record<string, string>;
  /** By a command's first word: the file of the program holding that command alone. */
  oneFile: Record<string, string>;
}

function readHelp(): HelpFile | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, 'help.json'), 'utf8')) as HelpFile;
  } catch {
    return undefined;
  }
}

/**
 * The arguments that are mcp-drift's own, as run-cli.ts reads a command line: those before
 * a bare `--` (after it come a stdio server's), without --verbose, which may stand
 * anywhere and changes no page and no command.
 */
function ownArgs(args: readonly string[]): string[] {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).filter((arg) => arg !== '--verbose');
}

/** The text commander would print for this request, when it is only a request for help. */
function answer(args: readonly string[], help: HelpFile): string | undefined {
  const own = ownArgs(args);
  if (own.length === 1 && (own[0] === '--version' || own[0] === '-V')) return `${help.version}\n`;
  const last = own.at(-1);
  if (last === '--help' || last === '-h') return help.pages[own.slice(0, -1).join(' ')];
  if (own[0] === 'help') return help.pages[own.slice(1).join(' ')];
  return undefined;
}

/**
 * The file of the program to run these arguments: a command's own, or undefined for the
 * split bundle. Only a command's own run goes to its own file: a request for help in any
 * form goes to the whole program, which has every page.
 */
function oneFileOf(args: readonly string[], help: HelpFile | undefined): string | undefined {
  const own = ownArgs(args);
  if (own.some((arg) => arg === '--help' || arg === '-h')) return undefined;
  return help?.oneFile[own[0] ?? ''];
}

/**
 * Runs a command's CommonJS file as require() would, but compiled with the V8 code cache
 * the build wrote beside it: V8 then skips most parsing and compiling, a third of such a
 * command's start. V8 ignores a cache made by another V8 (another Node version), with other
 * V8 flags, or for a source of another length, and the file is then compiled as usual; it
 * does not compare the source itself, so the build writes the file and its cache together,
 * and nothing else writes either (test/cli/code-cache.test.ts). The build asks for
 * the cache to be written (MCP_DRIFT_WRITE_CODE_CACHE) at the exit of a run, so that it
 * holds the functions a run compiles, not only the file's top level.
 */
function runWithCodeCache(file: string): void {
  const cacheFile = `${file}.cache`;
  const writing = process.env.MCP_DRIFT_WRITE_CODE_CACHE === '1';
  let cachedData: Buffer | undefined;
  try {
    cachedData = writing ? undefined : fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
  });
  if (writing) process.once('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()));
  const loaded = new Module(file, module);
  loaded.filename = file;
  loaded.loaded = true;
  // As require() would: what this process loaded is in require.cache.
  require.cache[file] = loaded;
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const dir = path.dirname(file);
  wrapper.call(loaded.exports, loaded.exports, Module.createRequire(file), loaded, file, dir);
}

const args = process.argv.slice(2);
// After a bare `--` come a stdio server's arguments: its own --help is not ours to answer.
const help = readHelp();
const page = help && !args.includes('--') ? answer(args, help) : undefined;
const oneFile = page === undefined ? oneFileOf(args, help) : undefined;
if (page !== undefined) {
  process.stdout.write(page);
} else if (oneFile !== undefined) {
  runWithCodeCache(path.join(__dirname, oneFile));
} else {
  void import(url.pathToFileURL(path.join(__dirname, 'run-cli.mjs')).href);
}
