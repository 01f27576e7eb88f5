import type { FC } from 'hono/jsx';
import type { AlertListItem } from '../../alerts/alert-list.js';
import { PostButton, When, query, type PageContext } from './parts.js';

/**
 * A change page's alert: a link to it in the outbox, its state, who acknowledged it, and
 * the acknowledge button (which comes back to this page). A change has at most one; one
 * below every channel's threshold has none.
 */
export const ChangeAlerts: FC<{ page: PageContext; changeId: number; alerts: AlertListItem[] }> = ({
  page,
  changeId,
  alerts,
}) => (
  <section
    aria-labelledby="change-alert-heading"
    id="change-alert"
    data-live="change-alert"
    data-live-on="alerts deliveries actions"
  >
    <h2 id="change-alert-heading">Alert</h2>
    {alerts.length === 0 ? (
      <p>No alert was queued for this change: it is below every alert threshold.</p>
    ) : (
      <ul class="plain">
        {alerts.map((alert) => (
          <li class="change-alert">
            {/* The outbox page that starts at this alert, however many came after it. */}
            <a
              href={`/alerts${query({ server: alert.server, before: alert.id + 1 })}#alert-${alert.id}`}
            >
              Alert #{alert.id}
            </a>
            : <span class={`status status-${alert.status}`}>{alert.status}</span>
            {alert.acknowledgedAt ? (
              <>
                {' by '}
                {alert.acknowledgedBy ? (
                  <>
                    <span class="actor">{alert.acknowledgedBy.actor}</span> (
                    {alert.acknowledgedBy.via})
                  </>
                ) : (
                  <span class="absent">someone not recorded</span>
                )}{' '}
                <When at={alert.acknowledgedAt} now={page.now} />
              </>
            ) : (
              <>
                {', queued '}
                <When at={alert.createdAt} now={page.now} />{' '}
                <PostButton
                  action={`/alerts/${alert.id}/ack`}
                  csrf={page.csrf}
                  label={`Acknowledge alert #${alert.id}`}
                  fields={{ change: String(changeId) }}
                />
              </>
            )}
          </li>
        ))}
      </ul>
    )}
  </section>
);
