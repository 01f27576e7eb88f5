// `node --import ./module-log.mjs …`: registers module-log-hooks.mjs before the program runs,
// and at exit adds what CommonJS loaded (require's cache: a package a bundled module takes
// with createRequire), which the hooks do not see.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./module-log-hooks.mjs', import.meta.url);

const required = createRequire(import.meta.url).cache;
process.on('exit', () => {
  if (!process.env.MODULE_LOG) return;
  const urls = Object.keys(required).map((file) => `${pathToFileURL(file).href}\n`);
  appendFileSync(process.env.MODULE_LOG, urls.join(''));
});
