import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { expect } from 'vitest';
import {
  canonicalListing,
  extrasOf,
  type Extras,
  type RawTool,
} from '../../src/listings/canonical.js';
import type { ConnectSpec, ProbeResult, ProbeSuccess } from '../../src/mcp/index.js';
import {
  HeldSession,
  type HeldListingTrigger,
  type HeldSessionListener,
  type HeldSessionOptions,
} from '../../src/watch/held-session.js';

/*
 * Shared by the held-session test files: short timings, a listener that records what it
 * is told, and the two fixture servers' listings.
 */

/** HELD_SESSION_LOG=debug shows the session's own account of a failing test. */
export const logger = pino(
  { level: process.env['HELD_SESSION_LOG'] ?? 'silent' },
  pino.destination(2),
);

export const TIMING = {
  timeoutMs: 5_000,
  debounceMs: 250,
  pingIntervalMs: 500,
  backoff: { initialMs: 50, maxMs: 500 },
} satisfies Partial<HeldSessionOptions>;

/** Clearly longer than the debounce: a re-list that has not come by then is not coming. */
export const QUIET_MS = 4 * TIMING.debounceMs;

export interface RecordedListing {
  result: ProbeResult;
  trigger: HeldListingTrigger;
  at: Date;
}

/** Records every callback, and the order of them as short event names. */
export class Recorder implements HeldSessionListener {
  readonly listings: RecordedListing[] = [];
  readonly downs: string[] = [];
  readonly events: string[] = [];
  notifications = 0;
  ups = 0;

  onListing(result: ProbeResult, trigger: HeldListingTrigger, at: Date): Promise<void> {
    this.listings.push({ result, trigger, at });
    this.events.push(`listing:${trigger}`);
    return Promise.resolve();
  }

  onNotification(): void {
    this.notifications += 1;
  }

  onDown(reason: string): void {
    this.downs.push(reason);
    this.events.push('down');
  }

  onUp(): void {
    this.ups += 1;
    this.events.push('up');
  }

  describe(): string {
    const failures = this.listings
      .filter((listing) => !listing.result.ok)
      .map((listing) => (listing.result.ok ? '' : listing.result.reason));
    return JSON.stringify({
      events: this.events,
      notifications: this.notifications,
      downs: this.downs,
      failures,
    });
  }
}

export function holdSession(
  spec: ConnectSpec,
  recorder: Recorder,
  options: Partial<HeldSessionOptions> = {},
): HeldSession {
  const held = new HeldSession({ spec, env: {}, logger, ...TIMING, ...options }, recorder);
  held.start();
  return held;
}

/** Polls until `condition` holds; the failure names what was awaited and what happened. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  recorder?: Recorder,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; ${recorder?.describe() ?? ''}`);
    }
    await delay(20);
  }
}

export function expectOk(listing: RecordedListing | undefined): ProbeSuccess {
  expect(listing).toBeDefined();
  const result = listing?.result;
  if (!result?.ok) throw new Error(`expected a listing, got ${JSON.stringify(result)}`);
  return result;
}

export function annotationsOf(result: ProbeSuccess, name: string): unknown {
  return result.tools.find((tool) => tool.name === name)?.['annotations'];
}

/** The hash of a listing result: its tools and every other surface it holds. */
export function hashOf(result: { tools: RawTool[] } & Extras): string {
  return canonicalListing(result.tools, extrasOf(result)).hash;
}

/** What a fixture lists, and the tool the control channel re-declares. */
export interface FixtureListing {
  script: 'sdk1-server.mjs' | 'sdk2-server.mjs';
  names: string[];
  tool: string;
  base: Record<string, boolean>;
  relaxed: Record<string, boolean>;
}

export const SDK1: FixtureListing = {
  script: 'sdk1-server.mjs',
  names: ['search_notes', 'delete_note', 'send_email', 'relax_delete_note'],
  tool: 'delete_note',
  base: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  relaxed: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
};

export const SDK2: FixtureListing = {
  script: 'sdk2-server.mjs',
  names: ['list_files', 'purge_tenant', 'post_message', 'relax_purge_tenant'],
  tool: 'purge_tenant',
  base: { readOnlyHint: false, destructiveHint: true },
  relaxed: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
};

/** Asserts a complete listing of the fixture, with its tool declared as `posture` says. */
export function expectFixtureListing(
  listing: RecordedListing | undefined,
  fixture: FixtureListing,
  trigger: HeldListingTrigger,
  posture: 'base' | 'relaxed',
): ProbeSuccess {
  const result = expectOk(listing);
  expect(listing?.trigger).toBe(trigger);
  expect(result.tools.map((tool) => tool.name)).toEqual(fixture.names);
  expect(annotationsOf(result, fixture.tool)).toEqual(fixture[posture]);
  return result;
}
