import { ProtocolError as ClientProtocolError } from '@modelcontextprotocol/client';
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import type { Gateway } from './gateway.js';
import { ruleFor } from './policy.js';
import type { GatewayDecision, RefusalReason } from '../vocabulary/gateway-policies.js';

/**
 * The JSON-RPC error code of a refused call: in the range JSON-RPC leaves to
 * implementations, so that a host can tell a gateway refusal from a server's own error.
 */
export const GATEWAY_REFUSED_CODE = -32010;

/** A result schema that takes the upstream's result as it is: nothing stripped, nothing added. */
const AS_SENT = {
  '~standard': {
    version: 1 as const,
    vendor: 'mcp-drift',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
  },
};

export interface HostServerOptions {
  /** One decision: a call forwarded or refused, a listing that withheld tools. */
  onDecision?: (decision: GatewayDecision, tool: string | null) => void;
  /** A call refused: its tool, why, and the change named (serve records it). */
  onRefused?: (refusal: { tool: string; reason: RefusalReason; changeId: string | null }) => void;
  /**
   * Send list_changed on this connection when the served listing changes (default true).
   * Off for per-request 2026 HTTP instances: their handler notifies listen streams.
   */
  announce?: boolean;
}

/**
 * One host connection's MCP server (either era: serveStdio and createMcpHandler pick it):
 * lists what the gateway serves, forwards or refuses calls, and passes prompts and
 * resources through. Told of a changed listing, it sends list_changed (2025) or its
 * subscription event (2026); see docs/gateway.md.
 */
export function createHostServer(gateway: Gateway, options: HostServerOptions = {}): Server {
  const upstream = gateway.upstream;
  const upstreamCaps = upstream.capabilities ?? {};
  const server = new Server(
    {
      name: `mcp-drift gateway (${upstream.serverInfo?.name ?? upstream.target})`,
      version: upstream.serverInfo?.version ?? '0.0.0',
    },
    {
      capabilities: {
        tools: { listChanged: true },
        ...(upstreamCaps.prompts ? { prompts: {} } : {}),
        ...(upstreamCaps.resources ? { resources: {} } : {}),
      },
      ...(upstream.instructions ? { instructions: upstream.instructions } : {}),
    },
  );
  const client = upstream.client;

  server.setRequestHandler('tools/list', () => {
    const rules = gateway.current();
    const withheld = rules.rules.filter((r) => r.action === 'withhold');
    for (const rule of withheld) options.onDecision?.('withheld', rule.name);
    return { tools: gateway.served() as never };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    const rules = gateway.current();
    const rule = ruleFor(rules, name);
    if (rule === undefined || rule.action === 'remove' || rule.action === 'withhold') {
      options.onDecision?.(rule?.action === 'withhold' ? 'withheld' : 'refused', name);
      throw new ProtocolError(-32602, `Unknown tool: ${name}`);
    }
    if (rule.action === 'refuse') {
      options.onDecision?.('refused', name);
      options.onRefused?.({ tool: name, reason: rule.reason, changeId: rules.changeId });
      const change =
        rules.changeId === null ? 'a change not yet recorded' : `change ${rules.changeId}`;
      throw new ProtocolError(
        GATEWAY_REFUSED_CODE,
        `${name} changed since it was approved (${rule.reason === 'relaxation' ? 'its annotations were relaxed' : 'its text addresses the model'}) and awaits approval: ${change}; ${gateway.source.approveHint}`,
        { tool: name, changeId: rules.changeId, reason: rule.reason },
      );
    }
    options.onDecision?.('forwarded', name);
    const progressToken = request.params._meta?.progressToken;
    try {
      return (await client.request({ method: 'tools/call', params: request.params }, AS_SENT, {
        signal: ctx.mcpReq.signal,
        resetTimeoutOnProgress: true,
        ...(progressToken === undefined
          ? {}
          : {
              onprogress: (progress) =>
                void ctx.mcpReq
                  .notify({
                    method: 'notifications/progress',
                    params: { ...progress, progressToken },
                  })
                  .catch(() => undefined),
            }),
      })) as never;
    } catch (error) {
      throw passedThrough(error);
    }
  });

  if (upstreamCaps.prompts) {
    server.setRequestHandler('prompts/list', async (request) =>
      forward(client.request({ method: 'prompts/list', params: request.params }, AS_SENT)),
    );
    server.setRequestHandler('prompts/get', async (request) =>
      forward(client.request({ method: 'prompts/get', params: request.params }, AS_SENT)),
    );
  }
  if (upstreamCaps.resources) {
    server.setRequestHandler('resources/list', async (request) =>
      forward(client.request({ method: 'resources/list', params: request.params }, AS_SENT)),
    );
    server.setRequestHandler('resources/templates/list', async (request) =>
      forward(
        client.request({ method: 'resources/templates/list', params: request.params }, AS_SENT),
      ),
    );
    server.setRequestHandler('resources/read', async (request) =>
      forward(client.request({ method: 'resources/read', params: request.params }, AS_SENT)),
    );
  }

  if (options.announce === false) return server;
  const unsubscribe = gateway.onListingChanged(() => {
    void server.sendToolListChanged().catch(() => undefined);
  });
  const previous = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previous?.();
  };
  return server;
}

async function forward(result: Promise<unknown>): Promise<never> {
  try {
    return (await result) as never;
  } catch (error) {
    throw passedThrough(error);
  }
}

/** The upstream's JSON-RPC error, as the upstream sent it; anything else as an internal error. */
function passedThrough(error: unknown): ProtocolError {
  if (error instanceof ClientProtocolError) {
    return new ProtocolError(error.code, error.message, error.data);
  }
  return new ProtocolError(-32603, error instanceof Error ? error.message : String(error));
}
