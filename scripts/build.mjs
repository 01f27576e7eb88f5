// `npm run build`: dist/cli/ from src/, with esbuild (typechecking is `npm run typecheck`).
//
// One ES module bundle, split at the program's lazy import()s: each command's module is
// imported only when it runs (src/cli/program.ts), so `--help` loads commander and the
// program, and `diff` no database driver. Bundled, a command loads a few files instead of
// hundreds from node_modules (docs/cli.md has the measurements). PGlite stays outside: it
// finds its WebAssembly and data files next to its own modules.
//
// The build reads src/ and tsconfig.json (the JSX settings of the console's pages) and
// writes dist/; it runs nothing it built, so a container's build stage needs no more.
import { build } from 'esbuild';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'dist', 'cli');
rmSync(path.join(root, 'dist'), { recursive: true, force: true });

// Every file sits in dist/cli/, two levels below the root, as src/cli/ does: the paths
// code finds from import.meta.url (drizzle/, package.json) are the same from both.
const result = await build({
  absWorkingDir: root,
  // Named, so that a build without it fails here rather than emitting React calls.
  tsconfig: 'tsconfig.json',
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: out,
  bundle: true,
  splitting: true,
  chunkNames: '[name]-[hash]',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Maps for stack traces (node --enable-source-maps); the sources are in the repository.
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  external: ['@electric-sql/pglite', '@electric-sql/pglite-socket'],
  // Bundled CommonJS dependencies call require() for node's modules.
  banner: {
    js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
  },
  metafile: true,
});

// Which sources each file of the bundle holds: test/cli/fast-start.test.ts reads it to
// tell what a command loaded.
const inputs = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith('.js'))
    .map(([file, output]) => [path.basename(file), Object.keys(output.inputs)]),
);
writeFileSync(path.join(out, 'bundle-inputs.json'), JSON.stringify(inputs));

// serve's spawn helper is a process of its own, plain CommonJS run as is: it sits beside
// the bundle, where src/mcp/spawn-helper.ts finds it from import.meta.url.
copyFileSync(
  path.join(root, 'src', 'mcp', 'spawn-helper-process.cjs'),
  path.join(out, 'spawn-helper-process.cjs'),
);
