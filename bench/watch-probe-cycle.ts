import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { alertPolicyOf } from '../src/alerts/alert-policy.js';
import { connectSpecOf, probeOptionsOf } from '../src/changes/observe-server.js';
import { recordObservation } from '../src/changes/record-observation.js';
import type { Environment } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import type { Database } from '../src/db/client.js';
import type { ServerRow } from '../src/db/schema.js';
import { probe } from '../src/mcp/index.js';
import { Limiter } from '../src/watch/limiter.js';

/** One full cycle over every server: how long it took and how many listings failed. */
export interface Cycle {
  ms: number;
  failed: number;
}

export interface CycleContext {
  db: Database;
  rows: ServerRow[];
  config: Config;
  env: Environment;
  tools: number;
}

/**
 * mcp-drift's scheduled-probe path for a held (http) server, as ServerWatcher.probeOnce runs
 * it: probe() (connect in the learned era, list every page, close) inside the shared
 * Limiter slot, then, with the slot released, recordObservation (one transaction). Its delivery check is a hash compare
 * with no database work when the listing is the held one, as here; markUp is for servers
 * without a held session only. (ServerWatcher.probeNow itself cannot be used: a watcher
 * that is not started holds no session, so it would take the stdio path and mark up.)
 */
export async function driftCycle(context: CycleContext): Promise<Cycle> {
  const limiter = new Limiter(context.config.PROBE_CONCURRENCY);
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    context.rows.map((server) =>
      (async () => {
        let startedAt = new Date();
        const result = await limiter.run(() => {
          startedAt = new Date();
          return probe(connectSpecOf(server), probeOptionsOf(context.config, context.env));
        });
        await recordObservation(context.db, {
          server,
          result,
          trigger: 'poll',
          startedAt,
          workerId: 'bench',
          alerts: alertPolicyOf(context.config),
        });
        if (!result.ok || result.tools.length !== context.tools) failed++;
      })(),
    ),
  );
  return { ms: performance.now() - started, failed };
}

/** mcp-drift's probe() alone, nothing recorded: where the time goes between the two. */
export async function probeOnlyCycle(context: CycleContext): Promise<Cycle> {
  const limiter = new Limiter(context.config.PROBE_CONCURRENCY);
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    context.rows.map((row) =>
      limiter.run(async () => {
        const result = await probe(connectSpecOf(row), probeOptionsOf(context.config, context.env));
        if (!result.ok || result.tools.length !== context.tools) failed++;
      }),
    ),
  );
  return { ms: performance.now() - started, failed };
}

/**
 * The bare SDK loop: the same client library, in the same era (2025, as mcp-drift connects
 * once it has learned the era), connect + every page of listTools + end the session + close.
 * Ending the session (DELETE) is what a well-behaved client does, and what mcp-drift does.
 */
export async function bareSdkCycle(context: CycleContext): Promise<Cycle> {
  const limiter = new Limiter(context.config.PROBE_CONCURRENCY);
  const timeout = context.config.REQUEST_TIMEOUT_MS;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    context.rows.map((row) =>
      limiter.run(async () => {
        const client = new Client(
          { name: 'bench-bare', version: '0.0.0' },
          { versionNegotiation: { mode: 'legacy' } },
        );
        const transport = new StreamableHTTPClientTransport(new URL(row.url!));
        try {
          await client.connect(transport, { timeout });
          let count = 0;
          let cursor: string | undefined;
          do {
            const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
              timeout,
            });
            count += page.tools.length;
            cursor = page.nextCursor;
          } while (cursor);
          if (count !== context.tools) failed++;
          await transport.terminateSession();
        } catch {
          failed++;
        } finally {
          await client.close().catch(() => {});
        }
      }),
    ),
  );
  return { ms: performance.now() - started, failed };
}
