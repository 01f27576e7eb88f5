import type { ChannelName } from '../vocabulary/channels.js';

/**
 * Where Slack and webhook alerts may be posted: HTTPS, or plain HTTP to this machine only
 * (a relay or a test receiver on loopback). An alert carries a server's tool listing and
 * the commands to approve it, which have no business crossing a network in clear text.
 * Pure: the config schema and `server add --slack/--webhook` share it.
 */
export function alertUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL such as https://hooks.example.com/…';
  }
  if (url.username || url.password)
    return 'must not hold a user or password; put secrets in the path';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return null;
  return 'must be an https:// URL (http:// only to 127.0.0.1, ::1 or localhost)';
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * A destination as it may be shown: Slack incoming-webhook URLs (and many webhook URLs)
 * are bearer secrets in their path, so only the scheme, host and the path's first segment
 * are kept.
 */
export function maskAlertUrl(value: string): string {
  try {
    const url = new URL(value);
    const [first] = url.pathname.split('/').filter((part) => part !== '');
    return `${url.protocol}//${url.host}/${first === undefined ? '' : `${first}/`}****`;
  } catch {
    return '****';
  }
}

/** Where a delivery went, as logs and listings may show it: Slack and webhook URLs are secrets. */
export function shownDestination(channel: ChannelName, destination: string): string {
  return channel === 'email' ? destination : maskAlertUrl(destination);
}
