// `npm run build`: dist/cli/ from src/, with esbuild (typechecking is `npm run typecheck`).
//
// A command loads a few files, not hundreds: the program is bundled, split per command
// (each command's module is imported only when it runs, see src/cli/program.ts), and its
// dependencies are in the bundle. Node 20 has no compile cache for ES modules, and
// resolving and loading a module costs about half a millisecond before its code runs; see
// docs/cli.md for the measurements. PGlite stays outside: it finds its WebAssembly and data
// files next to its own modules.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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

// Every chunk sits in dist/cli/, two levels below the root, as src/cli/ does: the paths
// code finds from import.meta.url (drizzle/, package.json) are the same from both.
const program = await build({
  ...common,
  entryPoints: { 'run-cli': 'src/cli/run-cli.ts', 'help-pages': 'src/cli/help-pages.ts' },
  outdir: out,
  format: 'esm',
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: '[name]-[hash]',
  external: ['@electric-sql/pglite', '@electric-sql/pglite-socket'],
  // Bundled CommonJS dependencies call require() for node's modules.
  banner: {
    js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
  },
  metafile: true,
});

// The executable: CommonJS (dist/cli/package.json says so), node's own modules only.
await build({
  ...common,
  entryPoints: ['src/cli/main.cts'],
  outfile: path.join(out, 'main.js'),
  format: 'cjs',
});
writeFileSync(path.join(out, 'package.json'), '{ "type": "commonjs" }\n');

const { helpPages } = await import(pathToFileURL(path.join(out, 'help-pages.mjs')).href);
writeFileSync(path.join(out, 'help.json'), JSON.stringify(helpPages()));

// Which sources each file of the bundle holds: test/cli/fast-start.test.ts reads it to
// tell what a command loaded.
const inputs = Object.fromEntries(
  Object.entries(program.metafile.outputs)
    .filter(([file]) => file.endsWith('.mjs'))
    .map(([file, output]) => [path.basename(file), Object.keys(output.inputs)]),
);
writeFileSync(path.join(out, 'bundle-inputs.json'), JSON.stringify(inputs));
