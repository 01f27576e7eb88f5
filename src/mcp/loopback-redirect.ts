import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DriftError } from '../errors.js';

/*
 * The redirect of a login (RFC 8252 §7.3): a listener on 127.0.0.1 and an ephemeral port
 * that takes the authorization server's answer from the browser. Only an answer carrying
 * the state this login sent is taken; anything else is refused and the wait goes on.
 */

export interface AuthorizationAnswer {
  code: string;
  /** RFC 9207: the issuer that answered, when the authorization server says. */
  iss: string | undefined;
}

export interface LoopbackRedirect {
  /** e.g. http://127.0.0.1:41234/callback */
  redirectUrl: string;
  /** Settles once a matching answer (or an error answer) arrives, or the wait is aborted. */
  answer: Promise<AuthorizationAnswer>;
  close(): Promise<void>;
}

const PAGE = (text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mcp-drift</title></head><body><p>${text}</p></body></html>`;

export async function listenForRedirect(options: {
  state: string;
  signal?: AbortSignal;
}): Promise<LoopbackRedirect> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const redirectUrl = `http://127.0.0.1:${port}/callback`;
  const answer = new Promise<AuthorizationAnswer>((resolve, reject) => {
    const onAbort = () =>
      reject(new DriftError('INTERRUPTED', 'the login was stopped before the browser came back'));
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', redirectUrl);
      const params = url.searchParams;
      const send = (status: number, text: string) =>
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE(text));
      if (url.pathname !== '/callback') return send(404, 'Not found.');
      // A request without this login's state may come from another page: never acted on.
      if (params.get('state') !== options.state) {
        return send(400, 'This answer does not belong to the login in progress.');
      }
      const error = params.get('error');
      const code = params.get('code');
      if (error !== null || code === null) {
        send(400, 'The login did not complete; see the terminal.');
        const description = params.get('error_description');
        return reject(
          new DriftError(
            'REMOTE_PROTOCOL',
            `the authorization server refused the login: ${error ?? 'no code'}${description ? ` (${description})` : ''}`,
          ),
        );
      }
      send(200, 'Logged in. You can close this tab and return to the terminal.');
      resolve({ code, iss: params.get('iss') ?? undefined });
    });
  });
  answer.catch(() => {});
  return {
    redirectUrl,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
