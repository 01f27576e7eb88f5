import { Counter } from 'prom-client';

/**
 * Every decision of serve's HTTP gateway, by server and decision (forwarded, refused,
 * withheld): a withheld count is per tool left out of a listing. Registered on /metrics's
 * registry by the HTTP layer.
 */
export function gatewayDecisionCounter(): Counter<'server' | 'decision'> {
  return new Counter({
    name: 'mcp_drift_gateway_decisions_total',
    help: 'Gateway decisions of this process, by server and decision: a call forwarded or refused, a tool withheld from a listing',
    labelNames: ['server', 'decision'],
    registers: [],
  });
}
