import { alertPolicyOf } from '../alerts/alert-policy.js';
import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { ServerRow } from '../db/schema.js';
import type { DeliveryContext } from '../diff/index.js';
import { probeAsEach } from '../mcp/index.js';
import { loginTokenStore } from '../registry/oauth-token-store.js';
import { connectSpecOf, probeOptionsOf } from './probe-spec.js';
import {
  recordObservation,
  type ObservationInput,
  type RecordedObservation,
} from './record-observation.js';

export { connectSpecOf, probeOptionsOf } from './probe-spec.js';

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
  const result = await probeAsEach(
    connectSpecOf(server),
    probeOptionsOf(
      options.config,
      options.env,
      options.signal,
      loginTokenStore(db, options.config, server),
    ),
    server.alsoAs,
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
