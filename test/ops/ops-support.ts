import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningServe } from '../support/serve.js';

/** The health and metrics URL a running serve logged in its "mcp-drift serving" line. */
export function httpUrlOf(serve: RunningServe): string {
  for (const line of serve.log().split('\n')) {
    if (!line.includes('"msg":"mcp-drift serving"')) continue;
    const url = (JSON.parse(line) as { http?: unknown }).http;
    if (typeof url === 'string') return url;
  }
  throw new Error(`serve logged no http URL; log:\n${serve.log()}`);
}

/**
 * GET with a deadline: an endpoint that does not answer within `timeoutMs` fails the test
 * (the orchestrator's probe would have given up too).
 */
export async function get(
  url: string,
  timeoutMs = 5_000,
): Promise<{ status: number; body: string; contentType: string | null }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return {
    status: response.status,
    body: await response.text(),
    contentType: response.headers.get('content-type'),
  };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (the subset prom-client writes). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name and these labels; throws when absent. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length !== 1)
    throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}

/** Polls `read` until it returns a value, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T | undefined>,
  options: { timeoutMs?: number; context?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const context = options.context ? `\n${options.context().slice(-4000)}` : '';
      throw new Error(`timed out waiting for ${what}${context}`);
    }
    await sleep(200);
  }
}
