import type { FC } from 'hono/jsx';
import type { FeedItem } from '../../changes/change-views.js';
import { FINDING_KINDS, SEVERITIES } from '../../diff/index.js';
import { EmptyState } from './empty-state.js';
import { Layout } from './layout.js';
import {
  Headline,
  Notice,
  Sev,
  When,
  movedCell,
  notificationText,
  query,
  type PageContext,
} from './parts.js';

/** The feed's filters as the form and its links carry them (strings, as in the query). */
export interface FeedParams {
  severity?: string;
  server?: string;
  kind?: string;
  since?: string;
  until?: string;
  before?: number;
}

export const SINCE_CHOICES = ['24h', '7d', '30d'] as const;

export const ChangesPage: FC<{
  page: PageContext;
  params: FeedParams;
  servers: string[];
  feed: { changes: FeedItem[]; next: number | null };
}> = ({ page, params, servers, feed }) => {
  const keep = {
    severity: params.severity,
    server: params.server,
    kind: params.kind,
    since: params.since,
    until: params.until,
  };
  return (
    <Layout title="Changes" section="changes" page={page}>
      <h1>Changes</h1>
      <Notice text={page.notice} />
      <form method="get" action="/changes" class="filters" aria-label="Filter the changes">
        <label>
          At least
          <select name="severity">
            <option value="">any severity</option>
            {SEVERITIES.map((severity) => (
              <option value={severity} selected={params.severity === severity}>
                {severity}
              </option>
            ))}
          </select>
        </label>
        <label>
          Server
          <select name="server">
            <option value="">every server</option>
            {servers.map((name) => (
              <option value={name} selected={params.server === name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          With a finding of kind
          <select name="kind">
            <option value="">any kind</option>
            {FINDING_KINDS.map((kind) => (
              <option value={kind} selected={params.kind === kind}>
                {kind}
              </option>
            ))}
          </select>
        </label>
        <label>
          Since
          <input
            type="text"
            name="since"
            value={params.since ?? ''}
            placeholder="24h, 7d, 30d or a date"
            list="since-choices"
          />
        </label>
        <datalist id="since-choices">
          {SINCE_CHOICES.map((choice) => (
            <option value={choice}></option>
          ))}
        </datalist>
        <label>
          Until
          <input type="text" name="until" value={params.until ?? ''} placeholder="a date (UTC)" />
        </label>
        <button type="submit">Apply</button>
        {Object.values(keep).some((value) => value !== undefined) ? (
          <a href="/changes">Clear the filters</a>
        ) : null}
      </form>
      <div data-live="feed" data-live-on="changes">
        {feed.changes.length === 0 ? (
          <EmptyState
            what="change"
            filtered={Object.values(params).some((value) => value !== undefined)}
            clear="/changes"
            none="No changes yet: a server's first listing is its baseline, and each listing that differs is a change."
          />
        ) : (
          <table class="feed">
            <caption>
              {params.before ? `Changes before #${params.before}` : 'Latest changes'}
            </caption>
            <thead>
              <tr>
                <th scope="col">change</th>
                <th scope="col">detected</th>
                <th scope="col">server</th>
                <th scope="col">severity</th>
                <th scope="col">surfaces moved</th>
                <th scope="col">worst finding</th>
                <th scope="col">findings</th>
                <th scope="col">notification</th>
              </tr>
            </thead>
            <tbody>
              {feed.changes.map((change) => (
                <tr>
                  <th scope="row">
                    <a href={`/changes/${change.id}`}>#{change.id}</a>
                  </th>
                  <td>
                    <When at={change.detectedAt} now={page.now} />
                  </td>
                  <td>
                    <a href={`/servers/${encodeURIComponent(change.server)}`}>{change.server}</a>
                  </td>
                  <td>
                    <Sev severity={change.severity} />
                  </td>
                  <td>{movedCell(change.surfaces, change.fromHash)}</td>
                  <td class="text">
                    <Headline headline={change.headline} />
                  </td>
                  <td>{change.findings}</td>
                  <td>{notificationText(change.notificationSeen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="pages">
          {params.before ? <a href={`/changes${query(keep)}`}>Latest changes</a> : null}{' '}
          {feed.next ? (
            <a href={`/changes${query({ ...keep, before: feed.next })}`}>Older changes</a>
          ) : null}
        </p>
      </div>
    </Layout>
  );
};
