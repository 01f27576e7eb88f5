import type { FC } from 'hono/jsx';
import type { AlertListItem } from '../../alerts/alert-list.js';
import { ALERT_STATUSES } from '../../alerts/alerts-repo.js';
import { Layout } from './layout.js';
import { Notice, PostButton, Sev, Shown, When, query, type PageContext } from './parts.js';

export const AlertsPage: FC<{
  page: PageContext;
  status?: string;
  server?: string;
  before?: number;
  alerts: AlertListItem[];
  next: number | null;
}> = ({ page, status, server, before, alerts, next }) => (
  <Layout title="Alerts" section="alerts" page={page}>
    <h1>Alert outbox</h1>
    <Notice text={page.notice} />
    <form method="get" action="/alerts" class="filters" aria-label="Filter the alerts">
      <label>
        Status
        <select name="status">
          <option value="">every status</option>
          {ALERT_STATUSES.map((value) => (
            <option value={value} selected={status === value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      {server ? <input type="hidden" name="server" value={server} /> : null}
      <button type="submit">Apply</button>
      {server ? (
        <span>
          of server {server} (<a href={`/alerts${query({ status })}`}>every server</a>)
        </span>
      ) : null}
    </form>
    <div data-live="alerts" data-live-on="alerts deliveries actions">
      {alerts.length === 0 ? (
        <p>No alert matches.</p>
      ) : (
        <table class="alerts">
          <caption>
            {before ? `Alerts before #${before}` : 'Latest alerts'}, each with its deliveries
          </caption>
          <thead>
            <tr>
              <th scope="col">alert</th>
              <th scope="col">server</th>
              <th scope="col">change</th>
              <th scope="col">status</th>
              <th scope="col">queued</th>
              <th scope="col">deliveries</th>
              <th scope="col">actions</th>
            </tr>
          </thead>
          <tbody>
            {alerts.map((alert) => (
              <tr id={`alert-${alert.id}`}>
                <th scope="row">#{alert.id}</th>
                <td>
                  <a href={`/servers/${encodeURIComponent(alert.server)}`}>{alert.server}</a>
                </td>
                <td>
                  <a href={`/changes/${alert.changeId}`}>
                    <Sev severity={alert.severity} /> #{alert.changeId}
                  </a>
                </td>
                <td>
                  <span class={`status status-${alert.status}`}>{alert.status}</span>
                  {alert.acknowledgedAt ? (
                    <>
                      {' '}
                      <When at={alert.acknowledgedAt} now={page.now} />
                    </>
                  ) : null}
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
                          <span class={`status status-${delivery.status}`}>{delivery.status}</span>,{' '}
                          {delivery.attempts} {delivery.attempts === 1 ? 'try' : 'tries'}
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
      )}
      <p class="pages">
        {before ? <a href={`/alerts${query({ status, server })}`}>Latest alerts</a> : null}{' '}
        {next ? (
          <a href={`/alerts${query({ status, server, before: next })}`}>Older alerts</a>
        ) : null}
      </p>
    </div>
  </Layout>
);
