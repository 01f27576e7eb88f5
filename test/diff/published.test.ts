import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_KINDS, checkFirstListing } from '../../src/diff/index.js';
import type { RawTool } from '../../src/listings/canonical.js';

/*
 * Precision on first sight: the listings of published servers as they answered on this
 * machine (test/fixtures/listings/published/README.md), each checked as a server's first
 * listing. Real vendor text is what the content checks must leave alone.
 */

interface Published {
  package: string;
  version: string;
  instructions?: string;
  tools: RawTool[];
}

const DIR = new URL('../fixtures/listings/published/', import.meta.url);
const servers = readdirSync(DIR)
  .filter((name) => name.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Published);

describe('published servers seen for the first time', () => {
  it('has at least thirty servers, each a different package', () => {
    expect(servers.length).toBeGreaterThanOrEqual(30);
    expect(new Set(servers.map((s) => s.package)).size).toBe(servers.length);
    expect(servers.every((s) => s.tools.length > 0)).toBe(true);
  });

  it.each(servers.map((s) => [`${s.package}@${s.version}`, s] as const))(
    '%s has no content finding',
    (_name, server) => {
      const found = checkFirstListing(server.tools).findings.filter((f) =>
        CONTENT_KINDS.has(f.kind),
      );
      expect(found.map((f) => `${f.tool} ${f.kind} ${f.field}`)).toEqual([]);
    },
  );
});
