import type { FC } from 'hono/jsx';
import type { AlertFilter } from '../../alerts/alert-list.js';
import { ALERT_STATUSES } from '../../alerts/alerts-repo.js';
import { SEVERITIES } from '../../diff/index.js';
import type { AlertFeedItem } from '../../read-models/alert-feed.js';
import { EmptyState } from './empty-state.js';
import { Layout } from './layout.js';
import { Notice, PostButton, Sev, Shown, When, query, type PageContext } from './parts.js';

/** Who acknowledged an alert, and when. */
const Acknowledged: FC<{ alert: AlertFeedItem; now: Date }> = ({ alert, now }) =>
  alert.acknowledgedAt ? (
    <span class="acked">
      {' by '}
      {alert.acknowledgedBy ? (
        <>
          <span class="actor">{alert.acknowledgedBy.actor}</span> ({alert.acknowledgedBy.via})
        </>
      ) : (
        <span class="absent">someone not recorded</span>
      )}{' '}
      <When at={alert.acknowledgedAt} now={now} />
    </span>
  ) : null;

export const AlertsPage: FC<{
  page: PageContext;
  filter: AlertFilter;
  servers: string[];
  alerts: AlertFeedItem[];
  next: number | null;
}> = ({ page, filter, servers, alerts, next }) => {
  const keep = { status: filter.status, server: filter.server, severity: filter.minSeverity };
  const filtered = Object.values(keep).some((value) => value !== undefined);
  const open = alerts.filter((alert) => alert.status !== 'acknowledged');
  return (
    <Layout title="Alerts" section="alerts" page={page}>
      <h1>Alert outbox</h1>
      <Notice text={page.notice} />
      <form method="get" action="/alerts" class="filters" aria-label="Filter the alerts">
        <label>
          Status
          <select name="status">
            <option value="">every status</option>
            {ALERT_STATUSES.map((value) => (
              <option value={value} selected={filter.status === value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          Server
          <select name="server">
            <option value="">every server</option>
            {servers.map((name) => (
              <option value={name} selected={filter.server === name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          At least
          <select name="severity">
            <option value="">any severity</option>
            {SEVERITIES.map((severity) => (
              <option value={severity} selected={filter.minSeverity === severity}>
                {severity}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
        {filtered ? <a href="/alerts">Clear the filters</a> : null}
      </form>
      <div data-live="alerts" data-live-on="alerts deliveries actions">
        {alerts.length === 0 ? (
          <EmptyState
            what="alert"
            filtered={filtered || filter.before !== undefined}
            clear="/alerts"
            none="No alerts yet: a change at or above the alert threshold queues one."
          />
        ) : (
          <>
            {open.length > 0 ? (
              <form
                id="bulk-ack"
                method="post"
                action={`/alerts/ack${query({ ...keep, before: filter.before })}`}
                class="bulk"
              >
                <input type="hidden" name="_csrf" value={page.csrf} />
                <button type="submit" class="plain">
                  Acknowledge the chosen alerts
                </button>
              </form>
            ) : null}
            <table class="alerts">
              <caption>
                {filter.before ? `Alerts before #${filter.before}` : 'Latest alerts'}, each with its
                deliveries
              </caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="visually-hidden">choose</span>
                  </th>
                  <th scope="col">alert</th>
                  <th scope="col">server</th>
                  <th scope="col">what changed</th>
                  <th scope="col">status</th>
                  <th scope="col">queued</th>
                  <th scope="col">deliveries</th>
                  <th scope="col">actions</th>
                </tr>
              </thead>
              <tbody>
                {alerts.map((alert) => (
                  <tr id={`alert-${alert.id}`}>
                    <td>
                      {alert.status !== 'acknowledged' ? (
                        <input
                          type="checkbox"
                          name="alert"
                          value={String(alert.id)}
                          form="bulk-ack"
                          aria-label={`Choose alert #${alert.id}`}
                        />
                      ) : null}
                    </td>
                    <th scope="row">#{alert.id}</th>
                    <td>
                      <a href={`/servers/${encodeURIComponent(alert.server)}`}>{alert.server}</a>
                    </td>
                    <td class="text headline">
                      <Sev severity={alert.severity} />{' '}
                      <a href={`/changes/${alert.changeId}`}>
                        <Shown text={alert.headline} />
                      </a>{' '}
                      <span class="note">change #{alert.changeId}</span>
                    </td>
                    <td>
                      <span class={`status status-${alert.status}`}>{alert.status}</span>
                      <Acknowledged alert={alert} now={page.now} />
                    </td>
                    <td>
                      <When at={alert.createdAt} now={page.now} />
                    </td>
                    <td>
                      {alert.deliveries.length === 0 ? (
                        <span class="absent">nobody to tell when it was queued</span>
                      ) : (
                        <ul class="deliveries">
                          {alert.deliveries.map((delivery) => (
                            <li>
                              {delivery.channel} to <code>{delivery.destination}</code>:{' '}
                              <span class={`status status-${delivery.status}`}>
                                {delivery.status}
                              </span>
                              , {delivery.attempts} {delivery.attempts === 1 ? 'try' : 'tries'}
                              {delivery.digestOf !== null && delivery.digestOf !== alert.id
                                ? `, in the digest of alert #${delivery.digestOf}`
                                : ''}
                              {delivery.lastError ? (
                                <>
                                  {'; last error: '}
                                  <Shown text={delivery.lastError} max={300} />
                                </>
                              ) : null}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td class="actions">
                      {alert.status !== 'acknowledged' ? (
                        <PostButton
                          action={`/alerts/${alert.id}/ack`}
                          csrf={page.csrf}
                          label={`Acknowledge #${alert.id}`}
                        />
                      ) : null}
                      {alert.status === 'failed' || alert.status === 'undeliverable' ? (
                        <PostButton
                          action={`/alerts/${alert.id}/retry`}
                          csrf={page.csrf}
                          label={`Retry #${alert.id}`}
                        />
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
        <p class="pages">
          {filter.before ? <a href={`/alerts${query(keep)}`}>Latest alerts</a> : null}{' '}
          {next ? <a href={`/alerts${query({ ...keep, before: next })}`}>Older alerts</a> : null}
        </p>
      </div>
    </Layout>
  );
};
