// The console's only script, served from /assets/ (the Content-Security-Policy allows no
// other). Pages read the same without it; with it, regions marked data-live refresh when
// the event stream says that something they show has moved: the page is fetched again
// and those regions are replaced by their new versions. The server escapes every text it
// renders; this script moves server-rendered markup only, and never runs any of it.
'use strict';

(() => {
  const regions = () => [...document.querySelectorAll('[data-live]')];
  const status = document.getElementById('live-status');
  if (regions().length === 0 || typeof EventSource === 'undefined') return;

  // Observations arrive every few seconds on a busy fleet: they alone refresh a page at
  // most this often. Anything else (a change, an alert, an outage) refreshes at once.
  const OBSERVATIONS_ONLY_MS = 10_000;
  let revision = Number(document.body.dataset.revision || '0');
  let wanted = new Set();
  let timer;
  let lastObservationRefresh = 0;
  let refreshing = false;

  const say = (text) => {
    if (!status) return;
    status.hidden = false;
    status.textContent = text;
  };

  const watching = (region, kinds) => {
    const on = (region.dataset.liveOn || '').split(/\s+/);
    return kinds.some((kind) => on.includes(kind));
  };

  async function refresh() {
    if (refreshing) return schedule(250);
    const kinds = [...wanted];
    wanted = new Set();
    const touched = regions().filter((region) => watching(region, kinds));
    if (touched.length === 0) return;
    // Someone typing in a region, or with boxes ticked in it (the outbox's bulk acknowledge),
    // keeps it; the next update brings it up to date.
    const busy = (region) =>
      (region.contains(document.activeElement) && document.activeElement !== document.body) ||
      [...region.querySelectorAll('input[type="checkbox"]')].some(
        (box) => box.checked !== box.defaultChecked,
      );
    refreshing = true;
    try {
      const response = await fetch(location.href, {
        headers: { accept: 'text/html' },
        credentials: 'same-origin',
        cache: 'no-store',
      });
      if (response.redirected && new URL(response.url).pathname === '/login') {
        say('Session ended: reload to log in again');
        return;
      }
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
      for (const region of touched) {
        if (busy(region)) continue;
        const replacement = fresh.querySelector(`[data-live="${CSS.escape(region.dataset.live)}"]`);
        if (replacement) region.replaceWith(document.importNode(replacement, true));
      }
    } catch {
      say('Live updates paused: cannot reach the console');
    } finally {
      refreshing = false;
    }
  }

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), delay);
  }

  const source = new EventSource(`/events?since=${revision}`);
  source.addEventListener('open', () => say('Live'));
  source.addEventListener('error', () => say('Reconnecting…'));
  source.addEventListener('update', (event) => {
    const update = JSON.parse(event.data);
    if (update.revision <= revision) return;
    revision = update.revision;
    for (const kind of update.kinds) wanted.add(kind);
    if (update.kinds.some((kind) => kind !== 'observations')) return schedule(100);
    const now = Date.now();
    const wait = Math.max(100, lastObservationRefresh + OBSERVATIONS_ONLY_MS - now);
    lastObservationRefresh = now + wait;
    schedule(wait);
  });
})();
