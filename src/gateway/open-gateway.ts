import type { Logger } from '../log.js';
import { openSession, type ConnectSpec, type SessionOptions } from '../mcp/index.js';
import type { GatewayPolicy } from '../vocabulary/gateway-policies.js';
import type { ApprovedSource } from './approved-source.js';
import { Gateway } from './gateway.js';

export interface OpenGatewayOptions {
  spec: ConnectSpec;
  session: Omit<SessionOptions, 'onToolsListChanged' | 'onClose'>;
  source: ApprovedSource;
  policy: GatewayPolicy;
  logger: Logger;
  /** The upstream connection ended: the gateway serves nothing more. */
  onUpstreamClosed?: () => void;
}

/**
 * The session to the upstream server and the Gateway deciding on it, started: what the
 * stdio gateway and serve's HTTP gateway share. `stop()` stops both. Throws when the
 * upstream cannot be reached or the approved definitions cannot be read; nothing is left
 * running then.
 */
export async function openGateway(options: OpenGatewayOptions): Promise<Gateway> {
  const { logger } = options;
  let gateway: Gateway | null = null;
  const upstream = await openSession(options.spec, {
    ...options.session,
    onToolsListChanged: () => void gateway?.refresh(),
    onClose: () => options.onUpstreamClosed?.(),
  });
  try {
    if (upstream.era === '2026') {
      // The 2026 era sends change events only on a listen; the poll covers a dropped one.
      await upstream.client.listen({ toolsListChanged: true }).catch((error: unknown) => {
        logger.debug({ err: error }, 'gateway: upstream listen failed; polling only');
      });
    }
    gateway = new Gateway({
      upstream,
      source: options.source,
      policy: options.policy,
      onError: (error) => logger.warn({ err: error }, 'gateway: refresh failed'),
      onRules: (rules) =>
        logger.debug(
          { server: options.spec.name, rules: rules.rules.map((r) => `${r.name}:${r.action}`) },
          'gateway: rules',
        ),
    });
    await gateway.start();
    return gateway;
  } catch (error) {
    gateway?.stop();
    await upstream.close();
    throw error;
  }
}
