import { randomUUID } from 'node:crypto';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../log.js';
import type { GatewayDecision } from '../vocabulary/gateway-policies.js';
import { baselineSource } from './approved-source.js';
import type { Gateway } from './gateway.js';
import { recordRefusal } from './gateway-refusals-repo.js';
import { serverOfGatewayToken } from './gateway-tokens-repo.js';
import { createHostServer, type HostServerOptions } from './host-server.js';
import { openGateway } from './open-gateway.js';

export interface HttpGatewaysOptions {
  /** serve's own handle: baselines are read here, so hosts add no database openers. */
  db: Database;
  config: Config;
  env: Environment;
  logger: Logger;
  onDecision?: (server: string, decision: GatewayDecision) => void;
}

/** Legacy (2025) sessions one server's gateway keeps at most: each holds an SSE stream. */
const MAX_LEGACY_SESSIONS = 1_000;

interface ServedGateway {
  gateway: Gateway;
  /** 2026-era requests: one instance per request; listen streams get the change events. */
  modern: McpHttpHandler;
  /** 2025-era sessions by Mcp-Session-Id: each a server with its GET stream for list_changed. */
  legacy: Map<string, WebStandardStreamableHTTPServerTransport>;
  /** What each 2025 session's server is made with (it announces changes itself). */
  legacyHost: HostServerOptions;
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, {
    status,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    },
  });
}

const unauthorized = () =>
  plain(401, 'a gateway token is required: `mcp-drift server gateway-token NAME` makes one', {
    'www-authenticate': 'Bearer realm="mcp-drift gateway"',
  });

function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  const match = header === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * serve's gateway over Streamable HTTP at `/gateway/NAME/mcp` (docs/gateway.md, Over HTTP).
 * Each server's gateway opens its upstream session on the first authenticated request and
 * serves every host from it until serve stops or the upstream goes away (the next request
 * then opens it again). Hosts of both eras: 2026 requests go to a per-request handler whose
 * `subscriptions/listen` streams get the change events; 2025 requests get sessions with a
 * GET stream, since a stateless 2025 endpoint could never send list_changed.
 */
export class HttpGateways {
  private readonly served = new Map<string, Promise<ServedGateway>>();
  private readonly options: HttpGatewaysOptions;
  private stopped = false;

  constructor(options: HttpGatewaysOptions) {
    this.options = options;
  }

  /** Answers one request to `/gateway/NAME/mcp`. */
  async fetch(name: string, request: Request): Promise<Response> {
    const token = bearerToken(request);
    if (token === null) return unauthorized();
    const serverId = await serverOfGatewayToken(this.options.db, name, token);
    if (serverId === null) return unauthorized();
    if (this.stopped) return plain(503, 'serve is stopping');
    let served: ServedGateway;
    try {
      served = await this.open(name, serverId);
    } catch (error) {
      this.options.logger.warn({ err: error, server: name }, 'gateway: cannot serve');
      return plain(
        502,
        `the gateway cannot serve ${name}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (await isLegacyRequest(request)) return await this.legacy(name, served, request);
    return await served.modern.fetch(request);
  }

  /** Decides again now: the server's listing or baseline may have changed. */
  refresh(name: string): void {
    void this.served
      .get(name)
      ?.then((served) => served.gateway.refresh())
      .catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.served.values()];
    this.served.clear();
    await Promise.allSettled(all.map(async (opening) => close(await opening)));
  }

  private open(name: string, serverId: number): Promise<ServedGateway> {
    let opening = this.served.get(name);
    if (opening) return opening;
    opening = this.openServed(name, serverId);
    this.served.set(name, opening);
    opening.catch(() => {
      if (this.served.get(name) === opening) this.served.delete(name);
    });
    return opening;
  }

  private async openServed(name: string, serverId: number): Promise<ServedGateway> {
    const { db, config, env } = this.options;
    const logger = this.options.logger.child({ server: name });
    const { connectSpecOf, probeOptionsOf } = await import('../changes/probe-spec.js');
    const { getServer, specOf } = await import('../registry/servers-repo.js');
    const row = await getServer(db, name);
    const { signal: _signal, ...session } = probeOptionsOf(config, env);
    const gateway = await openGateway({
      spec: connectSpecOf({ ...specOf(row), protocolEra: row.protocolEra }),
      session,
      source: baselineSource((fn) => fn(db), name),
      policy: config.GATEWAY_POLICY,
      logger,
      onUpstreamClosed: () => {
        logger.info('gateway: the upstream session ended; the next request opens a new one');
        const current = this.served.get(name);
        this.served.delete(name);
        void current?.then(close).catch(() => undefined);
      },
    });
    const hostOptions = (announce: boolean): HostServerOptions => ({
      announce,
      onDecision: (decision, tool) => {
        logger.debug({ tool, decision }, 'gateway: decision');
        this.options.onDecision?.(name, decision);
      },
      onRefused: (refusal) =>
        void recordRefusal(db, serverId, {
          tool: refusal.tool,
          reason: refusal.reason,
          changeId: refusal.changeId === null ? null : Number(refusal.changeId),
        }).catch((error: unknown) =>
          logger.warn({ err: error }, 'gateway: could not record a refusal'),
        ),
    });
    const modern = createMcpHandler(() => createHostServer(gateway, hostOptions(false)), {
      legacy: 'reject',
      onerror: (error) => logger.debug({ err: error }, 'gateway: host request error'),
    });
    gateway.onListingChanged(() => modern.notify.toolsChanged());
    return { gateway, modern, legacy: new Map(), legacyHost: hostOptions(true) };
  }

  private async legacy(name: string, served: ServedGateway, request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const transport = served.legacy.get(sessionId);
      // The 2025 transports' answer to an unknown session: the host starts a new one.
      if (!transport) return plain(404, 'session not found');
      return await transport.handleRequest(request);
    }
    if (request.method !== 'POST') return plain(400, 'Mcp-Session-Id is required');
    if (served.legacy.size >= MAX_LEGACY_SESSIONS) {
      return plain(503, `${name} has ${MAX_LEGACY_SESSIONS} gateway sessions open`);
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void served.legacy.set(id, transport),
      onsessionclosed: (id) => void served.legacy.delete(id),
    });
    const server = createHostServer(served.gateway, served.legacyHost);
    transport.onclose = () => {
      if (transport.sessionId !== undefined) served.legacy.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Not an initialize: nothing was opened that a later request could use.
    if (transport.sessionId === undefined) await server.close().catch(() => undefined);
    return response;
  }
}

async function close(served: ServedGateway): Promise<void> {
  served.gateway.stop();
  await Promise.allSettled([...served.legacy.values()].map((t) => t.close()));
  served.legacy.clear();
  await served.modern.close().catch(() => undefined);
  await served.gateway.upstream.close();
}
