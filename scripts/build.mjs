// `npm run build`: dist/cli/ from src/, with esbuild (typechecking is `npm run typecheck`).
//
// A command loads a few files, not hundreds: the program is bundled, split per command
// (each command's module is imported only when it runs, see src/cli/program.ts), and its
// dependencies are in the bundle. Node 20 has no compile cache for ES modules, and
// resolving and loading a module costs about half a millisecond before its code runs; see
// docs/cli.md for the measurements. PGlite stays outside: it finds its WebAssembly and data
// files next to its own modules.
//
// The commands that open the database also get a file each (ONE_FILE_COMMANDS below).
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'dist', 'cli');
rmSync(path.join(root, 'dist'), { recursive: true, force: true });

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
};

// Every file sits in dist/cli/, two levels below the root, as src/cli/ does: the paths
// code finds from import.meta.url (drizzle/, package.json) are the same from both.
const esm = {
  ...common,
  outdir: out,
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  external: ['@electric-sql/pglite', '@electric-sql/pglite-socket'],
  // Bundled CommonJS dependencies call require() for node's modules.
  banner: {
    js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
  },
  metafile: true,
};

// Every command can run from run-cli.mjs and its chunks.
const split = await build({
  ...esm,
  // run-cli alone: a second entry point here would put every module both reach (commander,
  // the program, the errors) in chunks of their own, each a file more to load at each start.
  entryPoints: { 'run-cli': 'src/cli/run-cli.ts' },
  splitting: true,
  chunkNames: '[name]-[hash]',
});
const outputs = { ...split.metafile.outputs };

/**
 * The commands that open the database, by their first word: the modules of that command,
 * and the arguments of the run that warms its code cache. Each gets run-cli with those
 * command modules only, in one CommonJS file (command-server.cjs) with a V8 code cache
 * beside it (command-server.cjs.cache), which the executable (main.cts) loads for that
 * command. They load the configuration, the database client, drizzle and postgres.js on
 * every run, so a split spares them nothing; one file can carry a code cache, and Node 20
 * compiles ES modules afresh at every start (it has no compile cache for them). For
 * `server list` through serve this saves about a third of its start (docs/cli.md).
 */
const ONE_FILE_COMMANDS = {
  server: { modules: ['server-command', 'server-import-command'], warm: ['server', 'list'] },
  check: { modules: ['check-command'], warm: ['check', 'warm-up'] },
  history: { modules: ['history-command'], warm: ['history', 'warm-up'] },
  changes: { modules: ['changes-command'], warm: ['changes'] },
  baseline: { modules: ['baseline-command'], warm: ['baseline', 'show', 'warm-up'] },
  alerts: { modules: ['alerts-command'], warm: ['alerts', 'list'] },
  migrate: { modules: ['migrate-command'], warm: ['migrate'] },
};

/**
 * Puts a stub in place of every command module the program imports but `kept`, and has
 * the logger (src/log.ts, imported when a command first logs) loaded from its own file.
 * pino is a fifth of what such a file would hold otherwise, and most runs log nothing: in
 * the file, it would be compiled at every start all the same.
 */
function onlyCommands(kept) {
  return {
    name: 'only-commands',
    setup(bundler) {
      bundler.onResolve({ filter: /^\.\.\/log\.js$/ }, (args) =>
        args.kind === 'dynamic-import' ? { path: `./${LOGGER_FILE}`, external: true } : undefined,
      );
      const found = new Set();
      bundler.onResolve({ filter: /^\.\/[a-z-]+-command\.js$/ }, (args) => {
        const name = path.basename(args.path, '.js');
        if (args.kind !== 'dynamic-import') return undefined;
        if (kept.includes(name)) return void found.add(name);
        return { path: name, namespace: 'left-out' };
      });
      // A command module renamed or moved would leave its file with nothing to run.
      bundler.onEnd(() => {
        const missing = kept.filter((name) => !found.has(name));
        if (missing.length > 0) {
          throw new Error(`program.ts imports no ${missing.join(', ')}: see ONE_FILE_COMMANDS`);
        }
      });
      bundler.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
        contents: `throw new Error('${args.path} is not in this file: dist/cli/main.js loads each command from its own');`,
        loader: 'js',
      }));
    },
  };
}

/** The logger alone, for the files of the commands (see onlyCommands). */
const LOGGER_FILE = 'logger.mjs';
const logger = await build({
  ...esm,
  entryPoints: { [path.basename(LOGGER_FILE, '.mjs')]: 'src/log.ts' },
});
Object.assign(outputs, logger.metafile.outputs);

/** By first word: the file main.cts loads for it (help.json carries it). */
const oneFile = {};
for (const [command, { modules }] of Object.entries(ONE_FILE_COMMANDS)) {
  const file = `command-${command}.cjs`;
  const result = await build({
    ...common,
    entryPoints: ['src/cli/run-cli.ts'],
    outfile: path.join(out, file),
    format: 'cjs',
    // No source map: main.cts compiles the file with vm.Script, for which node applies
    // none, and each would be twice the size of its file.
    sourcemap: false,
    // What the sources read from import.meta.url, CommonJS has as __filename.
    define: { 'import.meta.url': 'importMetaUrl' },
    banner: { js: "const importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    // import() becomes require(), as in any CommonJS build: main.cts compiles the file with
    // vm.Script, where import() would need an experimental option (and fails with a code
    // cache on Node 20). PGlite and the logger load through their CommonJS entry points or
    // require(esm), when a command opens PGlite itself or first logs.
    supported: { 'dynamic-import': false },
    external: esm.external,
    plugins: [onlyCommands(modules)],
    metafile: true,
  });
  Object.assign(outputs, result.metafile.outputs);
  oneFile[command] = file;
}

// The executable: CommonJS (dist/cli/package.json says so), node's own modules only.
await build({
  ...common,
  entryPoints: ['src/cli/main.cts'],
  outfile: path.join(out, 'main.js'),
  format: 'cjs',
});
writeFileSync(path.join(out, 'package.json'), '{ "type": "commonjs" }\n');

// The help pages are rendered here, at build time, by a bundle of their own, which goes once
// they are written (it holds every command: nothing runs it afterwards).
const helpBundle = path.join(out, 'help-pages.mjs');
await build({
  ...esm,
  sourcemap: false,
  metafile: false,
  entryPoints: { 'help-pages': 'src/cli/help-pages.ts' },
});
const { helpPages } = await import(pathToFileURL(helpBundle).href);
writeFileSync(path.join(out, 'help.json'), JSON.stringify({ ...helpPages(), oneFile }));
rmSync(helpBundle);

// Each command file's code cache, written at the exit of a run of it (main.cts, asked by
// MCP_DRIFT_WRITE_CODE_CACHE): so it holds the functions such a run compiles, not only the
// file's top level. The runs go through a real serve's socket, as a person's commands do
// while serve runs, on an embedded database with one server registered: a cache from a run
// that failed early (no database) left more to compile at each start (about 6 ms of CPU
// for `server list`).
await writeCodeCaches();

async function writeCodeCaches() {
  const home = mkdtempSync(path.join(tmpdir(), 'mcp-drift-build-'));
  const main = path.join(out, 'main.js');
  const env = { PATH: process.env.PATH ?? '', HOME: home, MCP_DRIFT_HOME: home };
  const cli = (args, extra = {}) =>
    spawnSync(process.execPath, [main, ...args], {
      cwd: home,
      env: { ...env, ...extra },
      encoding: 'utf8',
      timeout: 60_000,
    });
  const serve = spawn(process.execPath, [main, 'serve'], {
    cwd: home,
    env: { ...env, HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let serveErrors = '';
  serve.stderr.on('data', (chunk) => (serveErrors += chunk));
  const exited = new Promise((resolve) => serve.once('exit', resolve));
  try {
    const deadline = Date.now() + 60_000;
    while (!existsSync(path.join(home, 'db.sock'))) {
      if (serve.exitCode !== null || Date.now() > deadline) {
        throw new Error(`serve did not open its socket for the code caches: ${serveErrors}`);
      }
      await sleep(100);
    }
    const added = cli(['server', 'add', 'warm-up', '--url', 'http://127.0.0.1:9/mcp']);
    if (added.status !== 0) throw new Error(`registering the warm-up server: ${added.stderr}`);
    for (const { warm } of Object.values(ONE_FILE_COMMANDS)) {
      const run = cli(warm, { MCP_DRIFT_WRITE_CODE_CACHE: '1' });
      // 3: not found (no baseline yet), 4: the warm-up server is not there to be checked.
      if (![0, 3, 4].includes(run.status)) {
        throw new Error(`warming \`${warm.join(' ')}\` exited ${run.status}: ${run.stderr}`);
      }
    }
  } finally {
    serve.kill('SIGTERM');
    await exited;
    rmSync(home, { recursive: true, force: true });
  }
}

// Which sources each file of the bundle holds: test/cli/fast-start.test.ts reads it to
// tell what a command loaded.
const inputs = Object.fromEntries(
  Object.entries(outputs)
    .filter(([file]) => /\.[cm]js$/.test(file))
    .map(([file, output]) => [path.basename(file), Object.keys(output.inputs)]),
);
writeFileSync(path.join(out, 'bundle-inputs.json'), JSON.stringify(inputs));
