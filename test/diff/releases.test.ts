import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_KINDS,
  checkFirstListing,
  diffListings,
  type DiffResult,
} from '../../src/diff/index.js';
import type { RawTool } from '../../src/listings/canonical.js';

/*
 * Precision on real releases (issue 11): consecutive published versions of nine servers,
 * captured once (test/fixtures/listings/releases/README.md), diffed as mcp-drift would
 * diff them when a server is upgraded under it.
 */

interface Release {
  package: string;
  version: string;
  serverInfo: { version?: string } | null;
  tools: RawTool[];
}

const DIR = new URL('../fixtures/listings/releases/', import.meta.url);

/** Versions as numbers, part by part ("0.0.9" before "0.0.10"). */
function versionOrder(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function releases(): Map<string, Release[]> {
  const byPackage = new Map<string, Release[]>();
  for (const file of readdirSync(DIR).filter((name) => name.endsWith('.json'))) {
    const release = JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Release;
    const list = byPackage.get(release.package) ?? [];
    list.push(release);
    byPackage.set(release.package, list);
  }
  for (const list of byPackage.values()) list.sort((a, b) => versionOrder(a.version, b.version));
  return byPackage;
}

const all = releases();
const pairs = [...all.values()].flatMap((list) =>
  list.slice(1).map((after, index) => ({ before: list[index]!, after })),
);

function diff(before: Release, after: Release): DiffResult {
  return diffListings(before.tools, after.tools, {
    before: { serverVersion: before.serverInfo?.version ?? null },
    after: { serverVersion: after.serverInfo?.version ?? null },
  });
}

describe('real releases (issue 11, precision)', () => {
  it('has the captured releases', () => {
    expect(all.size).toBe(9);
    expect(pairs.length).toBeGreaterThanOrEqual(70);
  });

  it.each(
    [...all.values()]
      .flat()
      .map((release) => [`${release.package}@${release.version}`, release] as const),
  )('%s seen for the first time has no content finding', (_name, release) => {
    const found = checkFirstListing(release.tools).findings.filter((f) =>
      CONTENT_KINDS.has(f.kind),
    );
    expect(found.map((f) => `${f.tool} ${f.kind} ${f.field}`)).toEqual([]);
  });

  it('ordinary releases: none critical, at most one high in every forty pairs', () => {
    const severities = pairs.map(({ before, after }) => ({
      pair: `${before.package} ${before.version} -> ${after.version}`,
      severity: diff(before, after).severity,
    }));
    expect(severities.filter((s) => s.severity === 'critical')).toEqual([]);
    const high = severities.filter((s) => s.severity === 'high');
    expect(high.length).toBeLessThanOrEqual(Math.floor(pairs.length / 40));
  });

  it('the label filesystem later reversed (move_file declared non-destructive) alerts at medium', () => {
    const list = all.get('@modelcontextprotocol/server-filesystem')!;
    const before = list.find((release) => release.version === '2025.8.21')!;
    const after = list.find((release) => release.version === '2025.11.25')!;
    const relaxed = diff(before, after).findings.find(
      (f) =>
        f.tool === 'move_file' && f.kind === 'annotation_relaxed' && f.field === 'destructiveHint',
    );
    expect(relaxed?.severity).toBe('medium');
  });

  it('a release that keeps serverInfo.version is an unversioned change', () => {
    const list = all.get('@modelcontextprotocol/server-filesystem')!;
    const before = list.find((release) => release.version === '2026.7.4')!;
    const after = list.find((release) => release.version === '2026.7.10')!;
    const found = diff(before, after).findings.filter((f) => f.kind === 'unversioned_change');
    expect(found.map((f) => [f.tool, f.severity, f.after])).toEqual([[null, 'low', '0.2.0']]);
  });
});
