import { diffListings } from '../diff/index.js';
import { canonicalize, type RawTool } from '../listings/canonical.js';
import type { McpSession } from '../mcp/index.js';
import type { GatewayPolicy } from '../vocabulary/gateway-policies.js';
import type { ApprovedSource } from './approved-source.js';
import { decideTools, servedTools, type GatewayRules } from './policy.js';

export interface GatewayOptions {
  upstream: McpSession;
  source: ApprovedSource;
  policy: GatewayPolicy;
  /** Approvals and silent upstream changes are noticed within this (docs/gateway.md). */
  pollMs?: number;
  /** A refresh failed (the database, the upstream): logged, and the last rules stay. */
  onError?: (error: unknown) => void;
  /** Debug: the rules changed. */
  onRules?: (rules: GatewayRules) => void;
}

/** Something a host connection is told about: the served listing changed. */
export type ListingListener = () => void;

const DEFAULT_POLL_MS = 1000;

/**
 * The state one gateway process serves every host connection from: the rules decided from
 * the approved definitions and the upstream's current listing. Refreshed when the
 * upstream announces a change and on a one-second poll (which also catches approvals made
 * by another process and upstream changes made without a notification). When the served
 * listing changes, every listener (one per host connection) is told, so that it sends
 * list_changed or its subscription event.
 */
export class Gateway {
  readonly upstream: McpSession;
  readonly source: ApprovedSource;
  readonly policy: GatewayPolicy;
  private rules: GatewayRules = { rules: [], changeId: null };
  private servedKey = '';
  private approvedHash = '';
  private readonly listeners = new Set<ListingListener>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly options: GatewayOptions;

  constructor(options: GatewayOptions) {
    this.upstream = options.upstream;
    this.source = options.source;
    this.policy = options.policy;
    this.options = options;
  }

  /** Decides the first rules; throws when the approved definitions cannot be read. */
  async start(): Promise<void> {
    await this.refreshOnce();
    const pollMs = this.options.pollMs ?? DEFAULT_POLL_MS;
    this.timer = setInterval(() => void this.refresh(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  current(): GatewayRules {
    return this.rules;
  }

  served(): RawTool[] {
    return servedTools(this.rules);
  }

  onListingChanged(listener: ListingListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs a refresh now, or once more after the running one; errors go to onError. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.refreshOnce();
        } catch (error) {
          this.options.onError?.(error);
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async refreshOnce(): Promise<void> {
    const approved = await this.source.load();
    const { tools: current } = await this.upstream.listTools();
    const result = diffListings(approved.tools, current, { trust: approved.trust });
    const changeId = result.changed ? await this.source.changeId(result.afterHash) : null;
    const rules = decideTools({
      approved: approved.tools,
      current,
      findings: result.findings,
      policy: this.policy,
      changeId,
    });
    if (this.stopped) return;
    this.rules = rules;
    this.options.onRules?.(rules);
    const servedKey = canonicalize(servedTools(rules));
    const changed = servedKey !== this.servedKey || approved.hash !== this.approvedHash;
    const first = this.servedKey === '';
    this.servedKey = servedKey;
    this.approvedHash = approved.hash;
    if (changed && !first) for (const listener of this.listeners) listener();
  }
}
