import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { acknowledge, acknowledgeAll, listAlertViews } from '../alerts/alert-list.js';
import { retryAlert } from '../alerts/retry-alert.js';
import { previewApproval } from '../changes/approval-preview.js';
import { approveBaseline } from '../changes/baseline.js';
import { reviewChange } from '../changes/change-review.js';
import { changeFeed } from '../changes/change-views.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import { DriftError, isDriftError } from '../errors.js';
import type { Logger } from '../log.js';
import { alertFeed } from '../read-models/alert-feed.js';
import { filterFleet, fleetView } from '../read-models/fleet.js';
import { serverDetail } from '../read-models/server-detail.js';
import { enableServer } from '../registry/server-registry.js';
import { listServers } from '../registry/servers-repo.js';
import {
  authenticate,
  checkCsrf,
  formValue,
  formValues,
  fromThisOrigin,
  isApi,
  retrySeconds,
  securityHeaders,
  startSession,
  unauthorized,
  type AccessOptions,
  type ConsoleEnv,
} from './access.js';
import { apiRoutes } from './api-routes.js';
import { httpStatusOf, requestError } from './http-errors.js';
import type { LiveFeed } from './live-feed.js';
import { AlertsPage } from './pages/alerts-page.js';
import { ApprovePage } from './pages/approve-page.js';
import { ChangePage } from './pages/change-page.js';
import { ChangesPage } from './pages/changes-page.js';
import { ErrorPage } from './pages/error-page.js';
import { FleetPage } from './pages/fleet-page.js';
import { LoginThrottle } from './login-throttle.js';
import { LoginPage, type LoginProblem } from './pages/login-page.js';
import { query as queryOf, type PageContext } from './pages/parts.js';
import { ServerPage, WINDOWS, type TimelineWindow } from './pages/server-page.js';
import {
  alertFilterOf,
  alertIdsOf,
  fleetFilterOf,
  limitOf,
  localPath,
  oneOf,
  positiveInt,
  severityOf,
  kindOf,
  timeOf,
} from './params.js';
import { clientAddress } from './request-origin.js';
import { LOGIN_CODE_SECONDS, SESSION_COOKIE, type ConsoleKeys } from './session.js';

export interface ConsoleOptions {
  db: Database;
  config: Config;
  logger: Logger;
  keys: ConsoleKeys;
  live: LiveFeed;
  /** Of wrong tokens per client address; a fresh one when not given. */
  throttle?: LoginThrottle;
}

const LINK_PROBLEMS: Record<string, LoginProblem> = {
  used: 'used-link',
  throttled: 'throttled',
};

/** console.css and console.js: the only files served, read once, from console-assets/. */
const ASSETS_DIR = new URL('../../console-assets/', import.meta.url);
const ASSET_TYPES = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
} as const;

/** Messages after an action, chosen by a fixed key: no text from the request reaches a page. */
const NOTICES: Record<string, string> = {
  approved: 'Baseline approved: this listing is what the server’s changes are judged against now.',
  'approved-acknowledged':
    'Baseline approved and the alerts of its changes acknowledged: this listing is what the server’s changes are judged against now.',
  acknowledged: 'Alert acknowledged; what was not delivered yet will not be sent.',
  'already-acknowledged': 'That alert was acknowledged already.',
  'acknowledged-all': 'Alerts acknowledged; what was not delivered yet will not be sent.',
  'all-already-acknowledged': 'Those alerts were acknowledged already.',
  retried: 'Alert queued again; a running serve sends it.',
  'nothing-to-retry': 'That alert has no failed delivery to retry.',
  enabled: 'Server enabled: it is watched again within seconds.',
  disabled: 'Server disabled: it is no longer watched; its history stays.',
};

const PAGE_SIZE = 50;

/**
 * The operator console on the ops listener: server-rendered pages (Hono JSX), the JSON API
 * under /api/v1 (api-routes.ts), the event stream of live updates, and the actions
 * (approve, acknowledge, retry, enable, disable), each a POST. Every query is a use case of
 * its module (registry, changes, alerts), shared with the CLI.
 */
export function mountConsole(app: Hono, options: ConsoleOptions): void {
  const { db, config, logger, keys, live } = options;
  const defaults = { schedule: config.DEFAULT_SCHEDULE };
  const assets = new Map(
    Object.entries(ASSET_TYPES).map(([name, type]) => [
      name,
      { type, body: readFileSync(fileURLToPath(new URL(name, ASSETS_DIR)), 'utf8') },
    ]),
  );
  const access: AccessOptions = {
    keys,
    throttle: options.throttle ?? new LoginThrottle(),
    trustProxy: config.TRUST_PROXY,
  };
  const ui = new Hono<ConsoleEnv>();

  ui.use('*', securityHeaders);
  ui.use('*', authenticate(access));
  ui.use('*', checkCsrf(access));

  ui.get('/assets/:file', (c) => {
    const asset = assets.get(c.req.param('file'));
    if (!asset) return c.text('not found\n', 404);
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
  });

  // Browsers ask for it on every page; nothing to show, and no 404 page in their logs.
  ui.get('/favicon.ico', (c) => c.body(null, 204));

  const pageOf = (c: Context<ConsoleEnv>): PageContext => {
    const session = c.get('session');
    return {
      csrf: session ? keys.csrfToken(session) : '',
      actor: c.get('actor').name,
      revision: live.revision,
      now: new Date(),
      notice: NOTICES[c.req.query('notice') ?? ''],
    };
  };
  const page = async (
    c: Context,
    node: { toString(): string | Promise<string> },
    status: 200 | 400 | 401 | 403 | 404 | 409 | 429 | 500 | 503 = 200,
    headers: Record<string, string> = {},
  ) => c.html(`<!doctype html>${await node.toString()}`, status, headers);

  ui.get('/login', (c) =>
    page(
      c,
      <LoginPage
        next={localPath(c.req.query('next'))}
        problem={LINK_PROBLEMS[c.req.query('link') ?? '']}
      />,
    ),
  );
  ui.post('/login', async (c) => {
    // A login from another site would log a browser in unasked: same origin only.
    if (!fromThisOrigin(c))
      return c.text('refused: this request did not come from a console page\n', 403);
    const body = await c.req.parseBody();
    const next = localPath(formValue(body, 'next'));
    const address = clientAddress(c, access.trustProxy);
    const wait = access.throttle.wait(address);
    if (wait > 0) {
      return page(c, <LoginPage next={next} problem="throttled" />, 429, {
        'retry-after': String(retrySeconds(wait)),
      });
    }
    if (!keys.tokenMatches(formValue(body, 'token'))) {
      access.throttle.failed(address);
      logger.warn({ address }, 'console login with a wrong token');
      return page(c, <LoginPage next={next} problem="wrong-token" />, 401);
    }
    access.throttle.succeeded(address);
    const session = startSession(c, access, formValue(body, 'name') ?? '');
    logger.info({ actor: session.actor }, 'console login');
    return c.redirect(next, 303);
  });
  ui.post('/logout', (c) => {
    // Ended here, not only in this browser: a copy of the cookie is refused from now on.
    const session = c.get('session');
    if (session) keys.revoke(session);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });

  ui.get('/events', (c) => {
    const since = Number(c.req.query('since'));
    return new Response(live.eventStream(Number.isInteger(since) ? since : undefined), {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    });
  });

  ui.get('/', async (c) => {
    const filter = fleetFilterOf(c.req.query());
    const fleet = await fleetView(db);
    return page(
      c,
      <FleetPage
        page={pageOf(c)}
        fleet={fleet}
        shown={filterFleet(fleet.servers, filter)}
        filter={filter}
      />,
    );
  });

  ui.get('/servers/:name', async (c) => {
    const window =
      oneOf('window', c.req.query('window'), Object.keys(WINDOWS) as TimelineWindow[]) ?? '7d';
    const now = new Date();
    const changesBefore = positiveInt('changes_before', c.req.query('changes_before'));
    const observationsBefore = positiveInt(
      'observations_before',
      c.req.query('observations_before'),
    );
    const detail = await serverDetail(db, c.req.param('name'), defaults, {
      window: { since: new Date(now.getTime() - WINDOWS[window]), until: now },
      changesBefore,
      observationsBefore,
      pageSize: PAGE_SIZE,
    });
    return page(
      c,
      <ServerPage
        page={pageOf(c)}
        detail={detail}
        window={window}
        changesBefore={changesBefore}
        observationsBefore={observationsBefore}
      />,
    );
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    ui.post(`/servers/:name/${verb}`, async (c) => {
      const view = await enableServer(db, c.req.param('name'), enabled, defaults, {
        actor: c.get('actor'),
      });
      logger.info(
        { server: view.name, actor: c.get('actor').name },
        `server ${verb}d from the console`,
      );
      return c.redirect(`/servers/${encodeURIComponent(view.name)}?notice=${verb}d`, 303);
    });
  }

  // An approval takes two steps: this page shows what it accepts, and only its forms post it.
  ui.get('/servers/:name/approve', async (c) => {
    const preview = await previewApproval(db, c.req.param('name'), {
      listing: c.req.query('listing') ?? '',
      exact: true,
    });
    const change = positiveInt('change', c.req.query('change'));
    return page(c, <ApprovePage page={pageOf(c)} preview={preview} change={change} />);
  });

  ui.post('/servers/:name/baseline', async (c) => {
    const body = await c.req.parseBody();
    const latest = formValue(body, 'latest');
    if (!latest) {
      throw new DriftError(
        'INVALID_INPUT',
        'an approval carries the latest listing its page showed; approve from the server’s approve page',
      );
    }
    const change = positiveInt('change', formValue(body, 'change'));
    let approved;
    try {
      approved = await approveBaseline(db, c.req.param('name'), {
        listing: formValue(body, 'listing') ?? '',
        exact: true,
        latest,
        actor: c.get('actor'),
        acknowledgeAlerts: formValue(body, 'acknowledge') === 'alerts',
      });
    } catch (error) {
      if (!isDriftError(error) || error.code !== 'CONFLICT') throw error;
      // The page said what approving accepted; a listing seen since was not on it.
      const serverPath = `/servers/${encodeURIComponent(c.req.param('name'))}`;
      return page(
        c,
        <ErrorPage
          page={pageOf(c)}
          title="The listing changed after you reviewed it"
          message={`Nothing was approved. ${error.message}.`}
          next={{ href: serverPath, text: 'Review the server’s latest listing' }}
        />,
        409,
      );
    }
    logger.info(
      {
        server: approved.server,
        listing: approved.hash,
        acknowledged: approved.acknowledged,
        actor: c.get('actor').name,
      },
      'baseline approved from the console',
    );
    const notice = approved.acknowledged.length > 0 ? 'approved-acknowledged' : 'approved';
    return c.redirect(
      change
        ? `/changes/${change}?notice=${notice}`
        : `/servers/${encodeURIComponent(approved.server)}?notice=${notice}`,
      303,
    );
  });

  ui.get('/changes', async (c) => {
    const query = c.req.query();
    const now = new Date();
    const before = positiveInt('before', query['before']);
    const feed = await changeFeed(db, {
      server: query['server'] || undefined,
      minSeverity: severityOf('severity', query['severity']),
      kind: kindOf(query['kind']),
      since: timeOf('since', query['since'], now),
      until: timeOf('until', query['until'], now),
      before,
      limit: PAGE_SIZE,
    });
    const servers = (await listServers(db)).map((server) => server.name);
    return page(
      c,
      <ChangesPage
        page={pageOf(c)}
        servers={servers}
        feed={feed}
        params={{
          severity: query['severity'] || undefined,
          server: query['server'] || undefined,
          kind: query['kind'] || undefined,
          since: query['since'] || undefined,
          until: query['until'] || undefined,
          before,
        }}
      />,
    );
  });

  ui.get('/changes/:id', async (c) => {
    const id = positiveInt('change id', c.req.param('id'));
    if (id === undefined) throw new DriftError('NOT_FOUND', 'no such change');
    const review = await reviewChange(db, id);
    const { alerts } = await listAlertViews(db, { changeId: id, limit: 1 });
    return page(c, <ChangePage page={pageOf(c)} review={review} alerts={alerts} />);
  });

  ui.get('/alerts', async (c) => {
    const query = c.req.query();
    const filter = alertFilterOf(query);
    const feed = await alertFeed(db, { ...filter, limit: limitOf(query['limit'], PAGE_SIZE) });
    const servers = (await listServers(db)).map((server) => server.name);
    return page(
      c,
      <AlertsPage
        page={pageOf(c)}
        filter={filter}
        servers={servers}
        alerts={feed.alerts}
        next={feed.next}
      />,
    );
  });

  // The outbox's checkboxes: the form posts to this path with the page's own filters in its
  // query, so the answer goes back to the same view.
  ui.post('/alerts/ack', async (c) => {
    const filter = alertFilterOf(c.req.query());
    const ids = alertIdsOf(formValues(await c.req.parseBody({ all: true }), 'alert'));
    const { acknowledged } = await acknowledgeAll(db, ids, { actor: c.get('actor') });
    logger.info(
      { alerts: acknowledged, actor: c.get('actor').name },
      'alerts acknowledged from the console',
    );
    const notice = acknowledged.length > 0 ? 'acknowledged-all' : 'all-already-acknowledged';
    return c.redirect(
      `/alerts${queryOf({
        status: filter.status,
        server: filter.server,
        severity: filter.minSeverity,
        before: filter.before,
        notice,
      })}`,
      303,
    );
  });

  ui.post('/alerts/:id/ack', async (c) => {
    const id = positiveInt('alert id', c.req.param('id'))!;
    const body = await c.req.parseBody();
    const { acknowledged } = await acknowledge(db, id, { actor: c.get('actor') });
    logger.info({ alert: id, actor: c.get('actor').name }, 'alert acknowledged from the console');
    const notice = acknowledged.length > 0 ? 'acknowledged' : 'already-acknowledged';
    // From a change page, back to it.
    const change = positiveInt('change', formValue(body, 'change'));
    return c.redirect(
      change
        ? `/changes/${change}?notice=${notice}#change-alert`
        : `/alerts?notice=${notice}#alert-${id}`,
      303,
    );
  });

  ui.post('/alerts/:id/retry', async (c) => {
    const id = positiveInt('alert id', c.req.param('id'))!;
    const result = await retryAlert(db, config, id, { actor: c.get('actor') });
    return c.redirect(
      `/alerts?notice=${result.queued.length > 0 ? 'retried' : 'nothing-to-retry'}#alert-${id}`,
      303,
    );
  });

  // A fresh login code for `mcp-drift console-url`: codes live in this process only, so the
  // CLI asks the running serve for one. The token itself, not a session: a browser that is
  // logged in has no use for a link, and a stolen cookie must not mint entries for others.
  ui.post('/api/v1/login-links', (c) => {
    if (!c.get('bearer'))
      return unauthorized(c, 'send Authorization: Bearer <console token> to get a login link');
    logger.info({ actor: c.get('actor').name }, 'login link issued');
    return c.json({ code: keys.loginCode(), expiresInSeconds: LOGIN_CODE_SECONDS });
  });

  ui.route('/api/v1', apiRoutes({ db, config, logger }));

  // Anything else, once logged in: a page that says so (unknown API paths answer JSON).
  ui.all('*', (c) =>
    isApi(c.req.path)
      ? c.json(
          { error: { code: 'NOT_FOUND', message: `no API route ${c.req.method} ${c.req.path}` } },
          404,
        )
      : page(
          c,
          <ErrorPage
            page={pageOf(c)}
            title="Not found"
            message={`There is no page at ${c.req.path}.`}
          />,
          404,
        ),
  );

  ui.onError(async (thrown, c) => {
    const error = requestError(thrown);
    const status = isDriftError(error) ? httpStatusOf(error.code) : 500;
    if (status >= 500) logger.error({ err: error, path: c.req.path }, 'console request failed');
    const message =
      isDriftError(error) && status < 500 ? error.message : 'internal error; the log says more';
    if (isApi(c.req.path)) {
      return c.json(
        { error: { code: isDriftError(error) ? error.code : 'INTERNAL', message } },
        status as 500,
      );
    }
    return page(
      c,
      <ErrorPage
        page={pageOf(c as Context<ConsoleEnv>)}
        title={status === 404 ? 'Not found' : 'Could not do that'}
        message={message}
      />,
      status as 500,
    );
  });

  app.route('/', ui);
}
