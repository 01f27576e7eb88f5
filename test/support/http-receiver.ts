import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** The raw body, as the signature covers it. */
  body: string;
  receivedAt: number;
  /** What the receiver answered (null: held, never answered). */
  status: number | null;
}

export type Answer =
  | { status: number; headers?: Record<string, string>; body?: string }
  /** Never answer: the sender waits until it times out or dies. */
  | 'hold';

export interface TestReceiver {
  url(path: string): string;
  requests: ReceivedRequest[];
  /** Decides each answer; change it to change the receiver's schedule. */
  answer: (request: ReceivedRequest) => Answer;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback (node:http) standing in for Slack's incoming webhooks and
 * a webhook endpoint: it keeps every request it reads, with its raw body and headers, and
 * answers as `answer` says (200 "ok" by default, as Slack does).
 */
export async function startReceiver(): Promise<TestReceiver> {
  const held = new Set<ServerResponse>();
  const receiver: TestReceiver = {
    url: () => '',
    requests: [],
    answer: () => ({ status: 200, body: 'ok' }),
    close: async () => {},
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: ReceivedRequest = {
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        status: null,
      };
      receiver.requests.push(entry);
      const answer = receiver.answer(entry);
      if (answer === 'hold') {
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      entry.status = answer.status;
      response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      response.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  receiver.url = (path) => `http://127.0.0.1:${port}${path}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The requests for one path. */
export function requestsTo(receiver: TestReceiver, path: string): ReceivedRequest[] {
  return receiver.requests.filter((request) => request.path === path);
}
