import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_KINDS,
  checkFirstListing,
  diffListings,
  changeSeverity,
  severityAtLeast,
  type DiffResult,
  type Finding,
  type Severity,
} from '../../src/diff/index.js';
import type { RawTool } from '../../src/listings/canonical.js';

/*
 * Precision on real releases: consecutive published versions of published servers,
 * captured by scripts/capture-listings.mjs (test/fixtures/listings/releases/README.md),
 * diffed as mcp-drift would diff them when a server is upgraded under it.
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

/** The nine servers of the first capture; the pairs of the others are counted apart. */
const FIRST_CAPTURE = new Set([
  '@modelcontextprotocol/server-filesystem',
  '@modelcontextprotocol/server-memory',
  '@modelcontextprotocol/server-everything',
  '@modelcontextprotocol/server-sequential-thinking',
  '@playwright/mcp',
  '@wonderwhy-er/desktop-commander',
  '@upstash/context7-mcp',
  'mongodb-mcp-server',
  'chrome-devtools-mcp',
]);

const pairName = (before: Release, after: Release) =>
  `${before.package} ${before.version} -> ${after.version}`;

/**
 * The releases that must alert at high or above, and why: mobile-mcp 1.0.3 declares
 * destructiveHint false on the tools that tap, click, type, install and launch, which it
 * had declared destructive, so hosts stop confirming them. Every other pair is ordinary.
 */
const ALERTING = new Map([
  [
    '@mobilenext/mobile-mcp 1.0.2 -> 1.0.3',
    'destructiveHint true -> false on tools that act on the device',
  ],
]);

/**
 * Content findings on real text that the content checks get wrong, kept so that they show.
 * None today: neon's prepare_database_migration, which wraps its own answer format in
 * `<response_instructions>` and `<instructions>` tags, was one until the instruction-tag
 * rule stopped reading a plain `<instructions>` tag as an override (docs/content-checks.md).
 */
const CONTENT_FALSE_POSITIVES = new Set<string>([]);

function isKnownFalsePositive(pkg: string, finding: Finding): boolean {
  return CONTENT_FALSE_POSITIVES.has(`${pkg} ${finding.tool} ${finding.kind}`);
}

const graded = pairs.map(({ before, after }) => {
  const result = diff(before, after);
  const counted = changeSeverity(
    result.findings.filter((f) => !isKnownFalsePositive(after.package, f)),
  );
  return { pair: pairName(before, after), result, counted };
});

describe('real releases (precision)', () => {
  it('has the captured releases', () => {
    expect(all.size).toBeGreaterThanOrEqual(9 + 15);
    expect(pairs.length).toBeGreaterThanOrEqual(74 + 40);
    const others = pairs.filter(({ after }) => !FIRST_CAPTURE.has(after.package));
    expect(others.length).toBeGreaterThanOrEqual(40);
  });

  it('no ordinary release is high or above', () => {
    // The table, for a reader of the test output: every pair and its severity.
    console.log(
      graded
        .map(({ pair, result, counted }) => {
          const note =
            counted === result.severity
              ? ''
              : ` (${counted} without known content false positives)`;
          return `${result.severity.padEnd(8)} ${pair}${note}`;
        })
        .join('\n'),
    );
    const alerting = graded
      .filter(({ counted }) => severityAtLeast(counted, 'high'))
      .map(({ pair }) => pair);
    expect(alerting).toEqual([...ALERTING.keys()]);
  });

  it('a release that flips destructiveHint true -> false on tools that act stays high', () => {
    const { result } = graded.find(({ pair }) => pair === '@mobilenext/mobile-mcp 1.0.2 -> 1.0.3')!;
    const flipped = result.findings.filter(
      (f) => f.kind === 'annotation_relaxed' && f.field === 'destructiveHint',
    );
    const acting = flipped.filter((f) => /tap|click|install|press|swipe|type/.test(f.tool ?? ''));
    expect(acting.map((f) => f.tool)).toEqual(
      expect.arrayContaining([
        'mobile_double_tap_on_screen',
        'mobile_click_on_screen_at_coordinates',
        'mobile_install_app',
      ]),
    );
    for (const finding of acting) {
      expect([finding.tool, severityAtLeast(finding.severity, 'high')]).toEqual([
        finding.tool,
        true,
      ]);
    }
  });

  it('every label a vendor later reversed alerted when it was relaxed', () => {
    const reversed: string[] = [];
    for (const list of all.values()) {
      const relaxed: Array<{ pair: string; tool: string | null; hint?: string; severity: string }> =
        [];
      list.slice(1).forEach((after, index) => {
        const { result } = graded.find(({ pair }) => pair === pairName(list[index]!, after))!;
        for (const f of result.findings) {
          if (f.kind === 'annotation_relaxed') {
            relaxed.push({
              pair: pairName(list[index]!, after),
              tool: f.tool,
              hint: f.field,
              severity: f.severity,
            });
          } else if (f.kind === 'annotation_tightened') {
            for (const r of relaxed.filter((r) => r.tool === f.tool && r.hint === f.field)) {
              reversed.push(`${r.pair} ${r.tool} ${r.hint}`);
              expect([r.pair, r.tool, severityAtLeast(r.severity as Severity, 'medium')]).toEqual([
                r.pair,
                r.tool,
                true,
              ]);
            }
          }
        }
      });
    }
    // filesystem's move_file, declared non-destructive in 2025.11.25 and destructive again later.
    expect(reversed).toContain(
      '@modelcontextprotocol/server-filesystem 2025.8.21 -> 2025.11.25 move_file destructiveHint',
    );
  });

  it.each(
    [...all.values()]
      .flat()
      .map((release) => [`${release.package}@${release.version}`, release] as const),
  )('%s seen for the first time has no content finding', (_name, release) => {
    const found = checkFirstListing(release.tools).findings.filter(
      (f) => CONTENT_KINDS.has(f.kind) && !isKnownFalsePositive(release.package, f),
    );
    expect(found.map((f) => `${f.tool} ${f.kind} ${f.field}`)).toEqual([]);
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
