import { readFileSync } from 'node:fs';

/** package.json's version: what --version prints and SARIF names as the tool's. */
export function packageVersion(): string {
  const url = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}
