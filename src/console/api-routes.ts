import { Hono, type Context } from 'hono';
import { acknowledge, acknowledgeAll } from '../alerts/alert-list.js';
import { retryAlert } from '../alerts/retry-alert.js';
import { previewApproval } from '../changes/approval-preview.js';
import { approveBaseline } from '../changes/baseline.js';
import { reviewChange } from '../changes/change-review.js';
import { changeFeed } from '../changes/change-views.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/client.js';
import { DriftError } from '../errors.js';
import type { Logger } from '../log.js';
import { alertFeed } from '../read-models/alert-feed.js';
import { filterFleet, fleetView } from '../read-models/fleet.js';
import { serverDetail } from '../read-models/server-detail.js';
import { enableServer } from '../registry/server-registry.js';
import { formValues, type ConsoleEnv } from './access.js';
import { WINDOWS, type TimelineWindow } from './pages/server-page.js';
import {
  alertFilterOf,
  alertIdsOf,
  fleetFilterOf,
  kindOf,
  limitOf,
  oneOf,
  positiveInt,
  severityOf,
  timeOf,
} from './params.js';

/**
 * The console's data as JSON, under /api/v1 (README: "The console's API"). The same use
 * cases as the pages and the CLI; errors are `{"error": {"code", "message"}}` with the
 * status of their code. Writes take JSON or a form body.
 */
export function apiRoutes(options: { db: Database; config: Config; logger: Logger }) {
  const { db, config, logger } = options;
  const defaults = { schedule: config.DEFAULT_SCHEDULE };
  const api = new Hono<ConsoleEnv>();

  api.get('/servers', async (c) => {
    const filter = fleetFilterOf(c.req.query());
    const fleet = await fleetView(db);
    return c.json({
      servers: filterFleet(fleet.servers, filter),
      changeCounts: fleet.changeCounts,
    });
  });

  api.get('/servers/:name', async (c) => {
    const window =
      oneOf('window', c.req.query('window'), Object.keys(WINDOWS) as TimelineWindow[]) ?? '7d';
    const now = new Date();
    return c.json(
      await serverDetail(db, c.req.param('name'), defaults, {
        window: { since: new Date(now.getTime() - WINDOWS[window]), until: now },
        changesBefore: positiveInt('changes_before', c.req.query('changes_before')),
        observationsBefore: positiveInt('observations_before', c.req.query('observations_before')),
        pageSize: limitOf(c.req.query('limit'), 50),
      }),
    );
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    api.post(`/servers/:name/${verb}`, async (c) => {
      const view = await enableServer(db, c.req.param('name'), enabled, defaults, {
        actor: c.get('actor'),
      });
      logger.info(
        { server: view.name, actor: c.get('actor').name },
        `server ${verb}d through the API`,
      );
      return c.json(view);
    });
  }

  // What an approval of the listing would accept, before posting it.
  api.get('/servers/:name/approval', async (c) =>
    c.json(
      await previewApproval(db, c.req.param('name'), {
        listing: c.req.query('listing') ?? '',
        exact: true,
      }),
    ),
  );

  api.post('/servers/:name/baseline', async (c) => {
    const listing = await field(c, 'listing');
    // Optional for scripts that approve a hash they hold; refused (409) if the listing moved.
    const latest = await field(c, 'latest');
    const approved = await approveBaseline(db, c.req.param('name'), {
      listing: listing ?? '',
      exact: true,
      ...(latest === undefined ? {} : { latest }),
      actor: c.get('actor'),
      acknowledgeAlerts: (await field(c, 'acknowledge')) === 'alerts',
    });
    logger.info(
      { server: approved.server, listing: approved.hash, actor: c.get('actor').name },
      'baseline approved through the API',
    );
    return c.json(approved);
  });

  api.get('/changes', async (c) => {
    const query = c.req.query();
    const now = new Date();
    return c.json(
      await changeFeed(db, {
        server: query['server'] || undefined,
        minSeverity: severityOf('severity', query['severity']),
        kind: kindOf(query['kind']),
        since: timeOf('since', query['since'], now),
        until: timeOf('until', query['until'], now),
        before: positiveInt('before', query['before']),
        limit: limitOf(query['limit'], 50),
      }),
    );
  });

  api.get('/changes/:id', async (c) => {
    const id = positiveInt('change id', c.req.param('id'));
    if (id === undefined) throw new DriftError('NOT_FOUND', 'no such change');
    return c.json(await reviewChange(db, id));
  });

  api.get('/alerts', async (c) => {
    const query = c.req.query();
    return c.json(
      await alertFeed(db, { ...alertFilterOf(query), limit: limitOf(query['limit'], 50) }),
    );
  });

  // Several at once: `{"alerts": [3, 4]}`, or a form with `alert` repeated.
  api.post('/alerts/ack', async (c) => {
    const ids = alertIdsOf(await values(c, 'alerts', 'alert'));
    const result = await acknowledgeAll(db, ids, { actor: c.get('actor') });
    logger.info(
      { alerts: result.acknowledged, actor: c.get('actor').name },
      'alerts acknowledged through the API',
    );
    return c.json(result);
  });

  api.post('/alerts/:id/ack', async (c) => {
    const id = positiveInt('alert id', c.req.param('id'))!;
    const result = await acknowledge(db, id, { actor: c.get('actor') });
    logger.info({ alert: id, actor: c.get('actor').name }, 'alert acknowledged through the API');
    return c.json(result);
  });

  api.post('/alerts/:id/retry', async (c) => {
    const id = positiveInt('alert id', c.req.param('id'))!;
    const result = await retryAlert(db, config, id, { actor: c.get('actor') });
    return c.json({
      alert: id,
      queued: result.queued.map((row) => ({ id: row.id, channel: row.channel })),
    });
  });

  return api;
}

/** A list in a JSON body (`jsonName`), or a repeated form field (`formName`), as strings. */
async function values(c: Context, jsonName: string, formName: string): Promise<string[]> {
  const type = c.req.header('content-type') ?? '';
  if (type.startsWith('application/json')) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new DriftError('INVALID_INPUT', 'the request body is not valid JSON');
    }
    const list = (body as Record<string, unknown> | null)?.[jsonName];
    if (!Array.isArray(list)) {
      throw new DriftError('INVALID_INPUT', `give "${jsonName}" as a list of alert ids`);
    }
    return list.map(String);
  }
  return formValues(await c.req.parseBody({ all: true }), formName);
}

/** A field of a JSON or form body; a body that does not parse is a 400. */
async function field(c: Context, name: string): Promise<string | undefined> {
  const type = c.req.header('content-type') ?? '';
  let body: Record<string, unknown>;
  try {
    body = type.startsWith('application/json')
      ? ((await c.req.json()) as Record<string, unknown>)
      : ((await c.req.parseBody()) as Record<string, unknown>);
  } catch {
    throw new DriftError('INVALID_INPUT', 'the request body is not valid JSON');
  }
  const value = body?.[name];
  return typeof value === 'string' ? value : undefined;
}
