import { listAlertViews, type AlertFilter, type AlertListItem } from '../alerts/alert-list.js';
import { alertHeadline } from '../alerts/alert-view.js';
import { findingsOfChanges } from '../changes/changes-repo.js';
import type { Database } from '../db/client.js';

/*
 * The outbox as the console shows it: each alert with the headline its email and Slack
 * message carry (the worst finding of its change, in the catalogue's words). Here, above
 * both, because an alert's headline is read from its change's findings.
 */

export interface AlertFeedItem extends AlertListItem {
  headline: string;
}

/** Newest first, filtered; `next` is the `before` of the following page, null on the last. */
export async function alertFeed(
  db: Database,
  filter: AlertFilter & { limit: number },
): Promise<{ alerts: AlertFeedItem[]; next: number | null }> {
  const view = await listAlertViews(db, { ...filter, limit: filter.limit + 1 });
  const page = view.alerts.slice(0, filter.limit);
  const findings = await findingsOfChanges(
    db,
    page.map((alert) => alert.changeId),
  );
  return {
    alerts: page.map((alert) => ({
      ...alert,
      headline: alertHeadline(findings.filter((row) => row.changeId === alert.changeId)),
    })),
    next: view.alerts.length > filter.limit ? page.at(-1)!.id : null,
  };
}
