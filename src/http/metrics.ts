import { Gauge, Registry, collectDefaultMetrics, type Histogram, type Metric } from 'prom-client';
import type { Database } from '../db/client.js';
import {
  PROBE_BUCKETS_MS,
  readMetricsSnapshot,
  type MetricsSnapshot,
  type ProbeDurations,
} from './metrics-repo.js';
import { withTimeLimit } from '../time-limit.js';

/**
 * `/metrics`: the service's figures in the Prometheus text format, read from the database
 * at scrape time (see metrics-repo.ts), plus the process metrics prom-client collects.
 * A scrape that cannot reach the database within the time limit fails rather than serving
 * stale figures; the HTTP layer answers it with 503.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  private readonly db: Database;
  private readonly workerId: string;
  private readonly timeoutMs: number;
  private readonly gauges: {
    servers: Gauge<'state'>;
    held: Gauge<'scope'>;
    observations: Gauge<'outcome'>;
    changes: Gauge<'severity'>;
    alerts: Gauge<'status'>;
    deliveries: Gauge<'channel' | 'status'>;
    sinceListing: Gauge<'server'>;
  };
  private probes: MetricsSnapshot['probes'] | undefined;
  private scraping: Promise<string> | undefined;

  constructor(
    db: Database,
    options: { workerId: string; timeoutMs?: number; extra?: readonly Metric[] },
  ) {
    this.db = db;
    this.workerId = options.workerId;
    // Long enough for a scrape of the embedded database on a busy machine (2 s was not, in
    // CI at load 10), short enough to answer 503 well inside the 5 s a probe waits.
    this.timeoutMs = options.timeoutMs ?? 4_000;
    const registers = [this.registry];
    this.gauges = {
      servers: new Gauge({
        name: 'mcp_drift_servers',
        help: 'Registered servers by state: enabled, disabled, down (enabled with an open outage), misconfigured (enabled, a registration serve cannot use)',
        labelNames: ['state'],
        registers,
      }),
      held: new Gauge({
        name: 'mcp_drift_held_sessions_connected',
        help: 'Held sessions connected, of this worker (scope="worker") and of all workers (scope="all")',
        labelNames: ['scope'],
        registers,
      }),
      observations: new Gauge({
        name: 'mcp_drift_observations',
        help: 'Observations (listing attempts) recorded, by outcome; pruning history does not lower it',
        labelNames: ['outcome'],
        registers,
      }),
      changes: new Gauge({
        name: 'mcp_drift_changes',
        help: 'Recorded listing changes in the database, by severity',
        labelNames: ['severity'],
        registers,
      }),
      alerts: new Gauge({
        name: 'mcp_drift_alerts',
        help: 'Alerts in the outbox, by status',
        labelNames: ['status'],
        registers,
      }),
      deliveries: new Gauge({
        name: 'mcp_drift_alert_deliveries',
        help: 'Alert deliveries (one per channel and destination), by channel and status',
        labelNames: ['channel', 'status'],
        registers,
      }),
      sinceListing: new Gauge({
        name: 'mcp_drift_seconds_since_last_listing',
        help: "Seconds since each enabled server's latest successful listing started",
        labelNames: ['server'],
        registers,
      }),
    };
    this.registry.registerMetric(this.probeHistogram());
    // Counted in this process (the gateway's decisions), not read from the database.
    for (const metric of options.extra ?? []) this.registry.registerMetric(metric);
    collectDefaultMetrics({ register: this.registry });
  }

  /** Concurrent scrapes share one database snapshot and one rendering. */
  scrape(): Promise<string> {
    this.scraping ??= this.scrapeOnce().finally(() => (this.scraping = undefined));
    return this.scraping;
  }

  private async scrapeOnce(): Promise<string> {
    const snapshot = await withTimeLimit(
      readMetricsSnapshot(this.db, this.workerId),
      this.timeoutMs,
      'reading the metrics from the database',
    );
    this.apply(snapshot);
    return this.registry.metrics();
  }

  private apply(snapshot: MetricsSnapshot): void {
    const { gauges } = this;
    for (const gauge of Object.values(gauges)) gauge.reset();
    for (const [state, value] of Object.entries(snapshot.servers))
      gauges.servers.set({ state }, value);
    gauges.held.set({ scope: 'worker' }, snapshot.heldSessions.worker);
    gauges.held.set({ scope: 'all' }, snapshot.heldSessions.all);
    for (const [outcome, value] of Object.entries(snapshot.observations))
      gauges.observations.set({ outcome }, value);
    for (const [severity, value] of Object.entries(snapshot.changes))
      gauges.changes.set({ severity }, value);
    for (const [status, value] of Object.entries(snapshot.alerts))
      gauges.alerts.set({ status }, value);
    for (const [channel, statuses] of Object.entries(snapshot.deliveries))
      for (const [status, value] of Object.entries(statuses))
        gauges.deliveries.set({ channel, status }, value);
    for (const { server, seconds } of snapshot.secondsSinceListing)
      gauges.sinceListing.set({ server }, seconds);
    this.probes = snapshot.probes;
  }

  /**
   * prom-client's Histogram counts what this process observes; these counts come from the
   * database, so the registry gets an object of the shape it renders instead. Counts are
   * cumulative per bucket, as the text format wants.
   */
  private probeHistogram(): Histogram<'trigger'> {
    const name = 'mcp_drift_probe_duration_seconds';
    const values = () =>
      Object.entries(this.probes ?? {}).flatMap(([trigger, probe]: [string, ProbeDurations]) => [
        ...PROBE_BUCKETS_MS.map((ms, index) => ({
          metricName: `${name}_bucket`,
          labels: { trigger, le: ms / 1000 },
          value: probe.buckets[index] ?? 0,
        })),
        { metricName: `${name}_bucket`, labels: { trigger, le: '+Inf' }, value: probe.count },
        { metricName: `${name}_sum`, labels: { trigger }, value: probe.sumSeconds },
        { metricName: `${name}_count`, labels: { trigger }, value: probe.count },
      ]);
    const metric = {
      name,
      help: 'Duration of listing attempts recorded in the database (observation_counts), by trigger',
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({
        name,
        help: metric.help,
        type: metric.type,
        aggregator: metric.aggregator,
        values: values(),
      }),
      reset: () => {},
    };
    return metric as unknown as Histogram<'trigger'>;
  }
}
