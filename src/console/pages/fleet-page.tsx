import type { FC } from 'hono/jsx';
import type { ChangeSeverity } from '../../diff/index.js';
import {
  COUNT_WINDOWS,
  FLEET_SORTS,
  type FleetFilter,
  type FleetServer,
  type FleetView,
} from '../../read-models/fleet.js';
import { SEVERITIES } from '../../vocabulary/severities.js';
import { EmptyState } from './empty-state.js';
import { Layout } from './layout.js';
import { Hash, Notice, Sev, Shown, When, query, type PageContext } from './parts.js';

const SEVERITY_COLUMNS: readonly ChangeSeverity[] = SEVERITIES;

const SORT_LABELS: Record<(typeof FLEET_SORTS)[number], string> = {
  name: 'name',
  health: 'down first',
  listing: 'stalest listing first',
  change: 'worst latest change first',
  alerts: 'most open alerts first',
};

const Select: FC<{
  name: string;
  label: string;
  value: string | undefined;
  options: [string, string][];
}> = ({ name, label, value, options }) => (
  <label>
    {label}
    <select name={name}>
      <option value="">any</option>
      {options.map(([optionValue, text]) => (
        <option value={optionValue} selected={value === optionValue}>
          {text}
        </option>
      ))}
    </select>
  </label>
);

const State: FC<{ server: FleetServer; now: Date }> = ({ server, now }) =>
  server.state === 'misconfigured' && server.configProblem ? (
    // Not watched: what it last did would say nothing about now.
    <span class="state state-misconfigured">
      misconfigured since <When at={server.configProblem.since} now={now} />:{' '}
      <span class="reason">
        <Shown text={server.configProblem.problem} max={240} />
      </span>
    </span>
  ) : (
    <>
      {server.health === 'down' ? (
        <span class="state state-down">
          down since <When at={server.down!.since} now={now} />:{' '}
          <span class="reason">
            <Shown text={server.down!.reason} max={160} />
          </span>
        </span>
      ) : server.health === 'up' ? (
        <span class="state state-up">up</span>
      ) : (
        <span class="state">not listed yet</span>
      )}{' '}
      {server.watch === 'held' ? (
        <span class="mode">
          held since <When at={server.held!.since} now={now} />
        </span>
      ) : (
        <span class="mode">{server.watch}</span>
      )}
    </>
  );

export const FleetPage: FC<{
  page: PageContext;
  fleet: FleetView;
  shown: FleetServer[];
  filter: FleetFilter;
}> = ({ page, fleet, shown, filter }) => {
  const all = fleet.servers;
  const count = (test: (server: FleetServer) => boolean) => all.filter(test).length;
  return (
    <Layout title="Fleet" section="fleet" page={page}>
      <h1>Fleet</h1>
      <Notice text={page.notice} />
      <div
        data-live="fleet-summary"
        data-live-on="changes servers outages problems sessions baselines"
      >
        <ul class="totals" aria-label="Servers by state">
          <li>
            <strong>{all.length}</strong> servers
          </li>
          <li>
            <strong>{count((s) => s.health === 'down')}</strong> down
          </li>
          <li>
            <strong>{count((s) => s.watch === 'held')}</strong> held
          </li>
          <li>
            <strong>{count((s) => s.watch === 'probing')}</strong> probing
          </li>
          <li>
            <strong>{count((s) => s.watch === 'misconfigured')}</strong> misconfigured
          </li>
          <li>
            <strong>{count((s) => s.watch === 'disabled')}</strong> disabled
          </li>
          <li>
            <strong>{count((s) => s.drifted)}</strong> drifted from their baseline
          </li>
        </ul>
        <table class="counts">
          <caption>Changes by severity</caption>
          <thead>
            <tr>
              <th scope="col">window</th>
              {SEVERITY_COLUMNS.map((severity) => (
                <th scope="col">
                  <Sev severity={severity} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(Object.keys(COUNT_WINDOWS) as (keyof typeof COUNT_WINDOWS)[]).map((window) => (
              <tr>
                <th scope="row">last {window}</th>
                {SEVERITY_COLUMNS.map((severity) => (
                  <td>
                    <a
                      href={`/changes?severity=${severity}&since=${window}`}
                      aria-label={`${fleet.changeCounts[window][severity]} ${severity} changes in the last ${window}`}
                    >
                      {fleet.changeCounts[window][severity]}
                    </a>
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <form method="get" action="/" class="filters" aria-label="Filter and sort the fleet">
        <label>
          Name
          <input type="search" name="q" value={filter.text ?? ''} />
        </label>
        <Select
          name="health"
          label="State"
          value={filter.health}
          options={[
            ['up', 'up'],
            ['down', 'down'],
            ['unknown', 'not listed yet'],
          ]}
        />
        <Select
          name="watch"
          label="Watch"
          value={filter.watch}
          options={[
            ['held', 'held'],
            ['probing', 'probing'],
            ['misconfigured', 'misconfigured'],
            ['disabled', 'disabled'],
          ]}
        />
        <Select
          name="transport"
          label="Transport"
          value={filter.transport}
          options={[
            ['stdio', 'stdio'],
            ['http', 'http'],
            ['sse', 'sse'],
          ]}
        />
        <Select
          name="trust"
          label="Trust"
          value={filter.trust}
          options={[
            ['trusted', 'trusted'],
            ['partial', 'partial'],
            ['untrusted', 'untrusted'],
          ]}
        />
        <Select
          name="severity"
          label="Latest change at least"
          value={filter.minSeverity}
          options={SEVERITY_COLUMNS.map((severity) => [severity, severity])}
        />
        <Select
          name="drifted"
          label="Baseline"
          value={filter.drifted === undefined ? undefined : filter.drifted ? 'yes' : 'no'}
          options={[
            ['yes', 'drifted'],
            ['no', 'matches'],
          ]}
        />
        <label>
          Sort by
          <select name="sort">
            {FLEET_SORTS.map((sort) => (
              <option value={sort} selected={(filter.sort ?? 'name') === sort}>
                {SORT_LABELS[sort]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>

      <div
        data-live="fleet-table"
        data-live-on="changes observations servers outages problems sessions baselines alerts"
      >
        {shown.length === 0 ? (
          <EmptyState
            what="server"
            filtered={all.length > 0}
            clear={`/${query({ sort: filter.sort })}`}
            none={
              <>
                No servers yet: <code>mcp-drift server add</code> registers one.
              </>
            }
          />
        ) : (
          <table class="fleet">
            <caption>
              {shown.length === all.length
                ? `${all.length} servers`
                : `${shown.length} of ${all.length} servers`}
            </caption>
            <thead>
              <tr>
                <th scope="col">server</th>
                <th scope="col">transport</th>
                <th scope="col">trust</th>
                <th scope="col">state</th>
                <th scope="col">last listing</th>
                <th scope="col">latest change</th>
                <th scope="col">baseline</th>
                <th scope="col">open alerts</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((server) => (
                <tr
                  id={`server-${server.name}`}
                  class={
                    server.state === 'misconfigured'
                      ? 'misconfigured'
                      : server.health === 'down'
                        ? 'down'
                        : undefined
                  }
                >
                  <th scope="row">
                    <a href={`/servers/${encodeURIComponent(server.name)}`}>{server.name}</a>
                  </th>
                  <td>{server.transport}</td>
                  <td>{server.trust}</td>
                  <td>
                    <State server={server} now={page.now} />
                  </td>
                  <td>
                    <When at={server.lastListing?.at} now={page.now} />
                  </td>
                  <td>
                    {server.latestChange ? (
                      <a href={`/changes/${server.latestChange.id}`} class="change-link">
                        <Sev severity={server.latestChange.severity} /> #{server.latestChange.id}{' '}
                        <When at={server.latestChange.detectedAt} now={page.now} />
                      </a>
                    ) : (
                      <span class="absent">none</span>
                    )}
                  </td>
                  <td>
                    {server.baseline === null ? (
                      <span class="absent">none yet</span>
                    ) : server.drifted ? (
                      <span class="drifted">
                        drifted from <Hash hash={server.baseline.hash} />
                      </span>
                    ) : (
                      <span>matches</span>
                    )}
                  </td>
                  <td>
                    {server.unacknowledgedAlerts > 0 ? (
                      <a href={`/alerts?server=${encodeURIComponent(server.name)}`}>
                        {server.unacknowledgedAlerts}
                      </a>
                    ) : (
                      '0'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Layout>
  );
};
