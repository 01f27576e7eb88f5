import { alertPolicyOf } from '../alerts/alert-policy.js';
import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { ServerRow } from '../db/schema.js';
import type { DeliveryContext } from '../diff/index.js';
import { probe, type ConnectSpec } from '../mcp/index.js';
import {
  recordObservation,
  type ObservationInput,
  type RecordedObservation,
} from './record-observation.js';

export function connectSpecOf(server: ServerRow): ConnectSpec {
  return {
    name: server.name,
    transport: server.transport,
    command: server.command ?? undefined,
    args: server.args,
    env: server.env,
    cwd: server.cwd ?? undefined,
    url: server.url ?? undefined,
    headers: server.headers,
    era: server.protocolEra,
  };
}

export function probeOptionsOf(config: Config, env: Environment, signal?: AbortSignal) {
  return {
    env,
    timeoutMs: config.REQUEST_TIMEOUT_MS,
    caps: {
      maxPages: config.LISTING_MAX_PAGES,
      maxTools: config.LISTING_MAX_TOOLS,
      maxBytes: config.LISTING_MAX_BYTES,
    },
    signal,
  };
}

/** A fresh probe of one server, recorded: its observation and any change it reveals. */
export async function observeServer(
  db: Database,
  server: ServerRow,
  options: {
    config: Config;
    env: Environment;
    trigger: ObservationInput['trigger'];
    workerId?: string;
    delivery?: DeliveryContext;
    signal?: AbortSignal;
  },
): Promise<RecordedObservation> {
  const startedAt = new Date();
  const result = await probe(
    connectSpecOf(server),
    probeOptionsOf(options.config, options.env, options.signal),
  );
  return recordObservation(db, {
    server,
    result,
    trigger: options.trigger,
    startedAt,
    workerId: options.workerId,
    delivery: options.delivery,
    alerts: alertPolicyOf(options.config),
  });
}
