#!/usr/bin/env node
import module from 'node:module';

/*
 * The executable (dist/cli/main.js). Where the running node has a compile cache for
 * modules (module.enableCompileCache, Node 22.1 and later), it is turned on before the
 * program loads, so that a second run of a command reuses the code V8 compiled at the
 * first. Node 20 has none and compiles every module at every start. The program is
 * imported, not a static import, so that it loads after the cache is on: static imports
 * would be loaded before this line runs.
 */
const { enableCompileCache } = module as { enableCompileCache?: () => unknown };
enableCompileCache?.();

await import('./run-cli.js');
