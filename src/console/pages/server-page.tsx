import type { FC } from 'hono/jsx';
import { HINTS, declaredText, type DeclaredHint } from '../../diff/index.js';
import type { ServerDetail } from '../../read-models/server-detail.js';
import { surfaceCountsText } from '../../listings/surface-text.js';
import { FindingGroups } from './change-page.js';
import { Layout } from './layout.js';
import {
  approverText,
  Hash,
  Headline,
  movedCell,
  Notice,
  PostButton,
  Sev,
  Shown,
  When,
  notificationText,
  query,
  type PageContext,
} from './parts.js';
import { TimelineLegend, TimelineSvg } from './timeline-svg.js';

export const WINDOWS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type TimelineWindow = keyof typeof WINDOWS;

/** A declared hint in a table cell: the one wording of diff/hints.ts, and a dash for no tool. */
export function declaredCell(declared: DeclaredHint | null): string {
  return declared === null ? '—' : declaredText(declared);
}

const Registration: FC<{ detail: ServerDetail }> = ({ detail }) => {
  const r = detail.registration;
  const pairs = (values: Record<string, string>) =>
    Object.keys(values).length === 0 ? (
      <span class="absent">none</span>
    ) : (
      <ul class="plain">
        {Object.entries(values).map(([key, value]) => (
          <li>
            <code>{key}</code> = <code>{value}</code>
          </li>
        ))}
      </ul>
    );
  return (
    <dl class="fields">
      <dt>transport</dt>
      <dd>{r.transport}</dd>
      {r.transport === 'stdio' ? (
        <>
          <dt>command</dt>
          <dd>
            <code>{[r.command ?? '', ...r.args].join(' ')}</code>
          </dd>
          <dt>working directory</dt>
          <dd>{r.cwd ?? <span class="absent">where serve runs</span>}</dd>
          <dt>environment</dt>
          <dd>{pairs(r.env)}</dd>
        </>
      ) : (
        <>
          <dt>URL</dt>
          <dd>
            <code>{r.url}</code>
          </dd>
          <dt>headers</dt>
          <dd>{pairs(r.headers)}</dd>
        </>
      )}
      <dt>trust</dt>
      <dd>{r.trust}</dd>
      <dt>schedule</dt>
      <dd>
        <code>{r.effectiveSchedule}</code>
        {r.schedule === null ? ' (the default)' : ''}
      </dd>
      <dt>held session</dt>
      <dd>{r.held ? 'yes' : 'no (probed only)'}</dd>
      <dt>alert recipients</dt>
      <dd>
        {r.notify.length > 0 ? r.notify.join(', ') : <span class="absent">the global ones</span>}
      </dd>
      <dt>Slack, webhook</dt>
      <dd>
        {r.slack ?? <span class="absent">no Slack of its own</span>},{' '}
        {r.webhook ?? <span class="absent">no webhook of its own</span>}
      </dd>
      <dt>alert minimum</dt>
      <dd>{r.alertMinSeverity ?? <span class="absent">the global one</span>}</dd>
      <dt>protocol era</dt>
      <dd>{r.protocolEra ?? <span class="absent">not known yet</span>}</dd>
      <dt>registered</dt>
      <dd>
        {r.createdAt}, last edited {r.updatedAt}
      </dd>
    </dl>
  );
};

export const ServerPage: FC<{
  page: PageContext;
  detail: ServerDetail;
  window: TimelineWindow;
  changesBefore?: number;
  observationsBefore?: number;
}> = ({ page, detail, window, changesBefore, observationsBefore }) => {
  const { state, registration } = detail;
  const name = registration.name;
  const self = `/servers/${encodeURIComponent(name)}`;
  const held = detail.heldSession;
  return (
    <Layout title={name} section="fleet" page={page}>
      <h1>
        Server <span class="name">{name}</span>
      </h1>
      <Notice text={page.notice} />
      <div
        data-live="server-state"
        data-live-on="changes observations outages problems sessions servers baselines"
      >
        <p class="lead">
          {state.state === 'misconfigured' ? (
            <span class="state state-misconfigured">
              misconfigured since <When at={state.configProblem!.since} now={page.now} />:{' '}
              <Shown text={state.configProblem!.problem} max={300} />
            </span>
          ) : state.state === 'needs_login' ? (
            <span class="state state-down">
              login needed since <When at={state.down!.since} now={page.now} />:{' '}
              <Shown text={state.down!.reason} max={300} />
            </span>
          ) : state.health === 'down' ? (
            <span class="state state-down">
              down since <When at={state.down!.since} now={page.now} />:{' '}
              <Shown text={state.down!.reason} max={300} />
            </span>
          ) : state.health === 'up' ? (
            <span class="state state-up">up</span>
          ) : (
            <span class="state">not listed yet</span>
          )}
          {' · '}
          {state.watch === 'held'
            ? 'held session'
            : state.watch === 'misconfigured'
              ? 'not watched until the registration is fixed or serve restarts'
              : state.watch}
          {' · last listing '}
          <When at={state.lastListing?.at} now={page.now} />
        </p>
        <div class="actions">
          {state.enabled ? (
            <PostButton action={`${self}/disable`} csrf={page.csrf} label={`Disable ${name}`} />
          ) : (
            <PostButton action={`${self}/enable`} csrf={page.csrf} label={`Enable ${name}`} />
          )}
        </div>
      </div>

      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        <p class="windows">
          Window:{' '}
          {(Object.keys(WINDOWS) as TimelineWindow[]).map((w) => (
            <>
              <a
                href={`${self}${query({ window: w })}`}
                aria-current={w === window ? 'true' : undefined}
              >
                {w}
              </a>{' '}
            </>
          ))}
        </p>
        <div data-live="timeline" data-live-on="changes observations outages baselines">
          <TimelineSvg
            timeline={detail.timeline}
            baselineHash={detail.baseline?.hash ?? null}
            label={`Timeline of ${name} over the last ${window}`}
          />
          {detail.timeline.truncated ? (
            <p class="note">
              Only the latest 500 marks of each kind are drawn; choose a shorter window.
            </p>
          ) : null}
        </div>
        <TimelineLegend />
      </section>

      <section
        aria-labelledby="held-heading"
        data-live="held"
        data-live-on="sessions outages problems changes"
      >
        <h2 id="held-heading">Held session</h2>
        {held ? (
          <>
            {held.stale ? (
              <p class="warning">
                The held session still holds listing <Hash hash={held.listingHash} />, not the
                latest one seen (
                <Hash hash={state.lastListing?.hash} />
                ): long-lived host sessions gate on those stale values until they re-list.
              </p>
            ) : null}
            <dl class="fields">
              <dt>connected</dt>
              <dd>
                <When at={held.connectedAt} now={page.now} /> by worker <code>{held.worker}</code>
              </dd>
              <dt>holds listing</dt>
              <dd>
                <Hash hash={held.listingHash} />, listed <When at={held.listedAt} now={page.now} />
              </dd>
              <dt>last change notification</dt>
              <dd>
                <When at={held.lastNotificationAt} now={page.now} />
              </dd>
              <dt>advertises change notifications</dt>
              <dd>
                {held.listChangedAdvertised === null
                  ? 'not known'
                  : held.listChangedAdvertised
                    ? 'yes'
                    : 'no'}
              </dd>
            </dl>
          </>
        ) : (
          <p>
            {!registration.held
              ? 'This stdio server is probed on its schedule; no session is held (register it with --hold for one).'
              : state.state === 'disabled'
                ? 'No session is held: the server is disabled.'
                : state.state === 'misconfigured'
                  ? 'No session is held: the server is misconfigured (above).'
                  : state.state === 'down' || state.state === 'needs_login'
                    ? 'No session is held: the server is down (above).'
                    : 'No session is held right now: it is being connected.'}
          </p>
        )}
      </section>

      <section
        aria-labelledby="baseline-heading"
        data-live="baseline"
        data-live-on="baselines changes observations"
      >
        <h2 id="baseline-heading">Baseline</h2>
        {detail.baseline ? (
          <>
            <p>
              Listing <Hash hash={detail.baseline.hash} />,{' '}
              {approverText(detail.baseline.approvedBy, detail.baseline.approver)}{' '}
              <When at={detail.baseline.approvedAt} now={page.now} />.
              {state.drifted && state.latestChange ? (
                <>
                  {' '}
                  <strong class="drifted">
                    The latest listing (<Hash hash={state.lastListing?.hash} />) is not the
                    baseline.
                  </strong>{' '}
                  <a href={`/changes/${state.latestChange.id}`}>
                    Review change #{state.latestChange.id} to approve it.
                  </a>
                </>
              ) : null}
            </p>
            {detail.driftSinceApproval ? (
              <section aria-labelledby="drift-heading" class="drift-since-approval">
                <h3 id="drift-heading">
                  Drift since approval <Sev severity={detail.driftSinceApproval.severity} />
                </h3>
                <p>
                  From the baseline to the latest listing (
                  <Hash hash={detail.driftSinceApproval.latest} />
                  ), graded as one change: {detail.driftSinceApproval.findings.length} finding
                  {detail.driftSinceApproval.findings.length === 1 ? '' : 's'}, however many changes
                  lie between.
                </p>
                <FindingGroups findings={detail.driftSinceApproval.findings} level="h4" />
              </section>
            ) : null}
            <table class="tools">
              <caption>{`The baseline's ${detail.baseline.tools.length} tools and their declared hints`}</caption>
              <thead>
                <tr>
                  <th scope="col">tool</th>
                  <th scope="col">description</th>
                  {HINTS.map((hint) => (
                    <th scope="col">{hint}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {detail.baseline.tools.map((tool) => (
                  <tr>
                    <th scope="row">
                      <Shown text={tool.name} />
                    </th>
                    <td class="text">
                      <Shown text={tool.description} max={300} />
                    </td>
                    {HINTS.map((hint) => (
                      <td>{declaredCell(tool.hints[hint])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : (
          <p>No baseline yet: the first successful listing becomes it.</p>
        )}
      </section>

      <section aria-labelledby="changes-heading" data-live="server-changes" data-live-on="changes">
        <h2 id="changes-heading">Changes</h2>
        {detail.changes.items.length === 0 ? (
          <p>{changesBefore ? 'No older changes.' : 'No change recorded yet.'}</p>
        ) : (
          <table>
            <caption>
              {changesBefore ? `Changes before #${changesBefore}` : 'Latest changes'}
            </caption>
            <thead>
              <tr>
                <th scope="col">change</th>
                <th scope="col">detected</th>
                <th scope="col">severity</th>
                <th scope="col">surfaces moved</th>
                <th scope="col">worst finding</th>
                <th scope="col">notification</th>
              </tr>
            </thead>
            <tbody>
              {detail.changes.items.map((change) => (
                <tr>
                  <th scope="row">
                    <a href={`/changes/${change.id}`}>#{change.id}</a>
                  </th>
                  <td>
                    <When at={change.detectedAt} now={page.now} />
                  </td>
                  <td>
                    <Sev severity={change.severity} />
                  </td>
                  <td>{movedCell(change.surfaces, change.fromHash)}</td>
                  <td class="text">
                    <Headline headline={change.headline} kind={false} />
                  </td>
                  <td>{notificationText(change.notificationSeen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="pages">
          {changesBefore ? (
            <a href={`${self}${query({ window, observations_before: observationsBefore })}`}>
              Latest changes
            </a>
          ) : null}{' '}
          {detail.changes.next ? (
            <a
              href={`${self}${query({ window, changes_before: detail.changes.next, observations_before: observationsBefore })}`}
            >
              Older changes
            </a>
          ) : null}
        </p>
      </section>

      <section
        aria-labelledby="observations-heading"
        data-live="observations"
        data-live-on="observations"
      >
        <h2 id="observations-heading">Observations</h2>
        {detail.observations.items.length === 0 ? (
          <p>{observationsBefore ? 'No older observations.' : 'Not listed yet.'}</p>
        ) : (
          <table>
            <caption>
              {observationsBefore
                ? `Observations before #${observationsBefore}`
                : 'Latest observations'}
            </caption>
            <thead>
              <tr>
                <th scope="col">run</th>
                <th scope="col">first seen</th>
                <th scope="col">last seen</th>
                <th scope="col">observations</th>
                <th scope="col">how</th>
                <th scope="col">outcome</th>
                <th scope="col">took (latest)</th>
                <th scope="col">listing</th>
                <th scope="col">surfaces</th>
                <th scope="col">change</th>
              </tr>
            </thead>
            <tbody>
              {detail.observations.items.map((observation) => (
                <tr>
                  <th scope="row">#{observation.id}</th>
                  <td>
                    <When at={observation.firstSeenAt} now={page.now} />
                  </td>
                  <td>
                    <When at={observation.lastSeenAt} now={page.now} />
                  </td>
                  <td>{observation.count.toLocaleString('en-US')}</td>
                  <td>{Object.keys(observation.triggers).join(', ')}</td>
                  <td>
                    {observation.outcome === 'ok' ? (
                      'ok'
                    ) : (
                      <span class="error">
                        error: <Shown text={observation.error?.message ?? ''} max={200} />
                      </span>
                    )}
                  </td>
                  <td>{observation.durationMs} ms</td>
                  <td>
                    <Hash hash={observation.listingHash} />
                  </td>
                  <td>{observation.surfaces ? surfaceCountsText(observation.surfaces) : ''}</td>
                  <td>
                    {observation.change ? (
                      <>
                        <a href={`/changes/${observation.change.id}`}>
                          <Sev severity={observation.change.severity} /> #{observation.change.id}
                        </a>{' '}
                        {movedCell(observation.change.surfaces, observation.change.fromHash)}
                      </>
                    ) : (
                      ''
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="pages">
          {observationsBefore ? (
            <a href={`${self}${query({ window, changes_before: changesBefore })}`}>
              Latest observations
            </a>
          ) : null}{' '}
          {detail.observations.next ? (
            <a
              href={`${self}${query({ window, changes_before: changesBefore, observations_before: detail.observations.next })}`}
            >
              Older observations
            </a>
          ) : null}
        </p>
      </section>

      <section aria-labelledby="refusals-heading">
        <h2 id="refusals-heading">Gateway refusals</h2>
        {detail.gatewayRefusals.length === 0 ? (
          <p>No call through serve’s gateway has been refused.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Tool</th>
                <th scope="col">Why</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {detail.gatewayRefusals.map((refusal) => (
                <tr>
                  <td>
                    <time datetime={refusal.at}>{refusal.at}</time>
                  </td>
                  <td>
                    <Shown text={refusal.tool} />
                  </td>
                  <td>
                    {refusal.reason === 'relaxation'
                      ? 'its annotations were relaxed'
                      : 'its text addresses the model'}
                  </td>
                  <td>
                    {refusal.changeId === null ? (
                      'not yet recorded'
                    ) : (
                      <a href={`/changes/${refusal.changeId}`}>{refusal.changeId}</a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="registration-heading">
        <h2 id="registration-heading">Registration</h2>
        <p class="note">
          Literal header and environment values, and passwords in URLs, are masked, as in{' '}
          <code>mcp-drift server show</code>.
        </p>
        <Registration detail={detail} />
      </section>

      <section aria-labelledby="actions-heading" data-live="actions" data-live-on="actions">
        <h2 id="actions-heading">What operators did</h2>
        {detail.actions.length === 0 ? (
          <p>Nothing yet.</p>
        ) : (
          <ul class="plain">
            {detail.actions.map((action) => (
              <li>
                <time datetime={action.at}>{action.at}</time> <Shown text={action.actor} /> (
                {action.via}): {action.action}{' '}
                <code>
                  {action.subject.length === 64 ? action.subject.slice(0, 12) : action.subject}
                </code>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Layout>
  );
};
