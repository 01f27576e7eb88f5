import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { startReceiver, type TestReceiver } from '../support/http-receiver.js';

/*
 * A server URL whose query string carries a credential (`?api_key=…`, as some hosted MCP
 * servers are reached): the value is masked wherever the URL is shown (server list/show,
 * --json) and in the reasons stored for failed runs, and the real URL is still the one
 * connected to (the receiver sees the secret).
 */

const SECRET = 'q5ecret-Value-7731';
const ALSO_SECRET = 'x9Signature-0042';
let database: TestDatabase;
let receiver: TestReceiver;
const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
  // Not an MCP server: the check fails, and its reason is stored.
  receiver.answer = () => ({ status: 500, body: `bad request to /mcp?api_key=${SECRET}` });
});
afterAll(async () => {
  await receiver?.close();
  await database?.drop();
});

describe(`a secret in a server URL's query string (${backend})`, () => {
  it('is masked in every view and stored reason, and sent to the server as given', async () => {
    const url = `${receiver.url('/mcp')}?api_key=${SECRET}&page=2&X-Amz-Signature=${ALSO_SECRET}`;
    const added = await cli('server', 'add', 'web', '--url', url);
    expect(added.code, added.stderr).toBe(0);
    const checked = await cli('check', 'web');
    expect(checked.code).not.toBe(0);
    expect(receiver.requests.some((r) => r.path.includes(`api_key=${SECRET}`))).toBe(true);

    const outputs = [
      added,
      checked,
      await cli('server', 'list'),
      await cli('server', 'list', '--json'),
      await cli('server', 'show', 'web'),
      await cli('server', 'show', 'web', '--json'),
      await cli('history', 'web'),
      await cli('history', 'web', '--json'),
    ];
    for (const output of outputs) {
      const text = output.stdout + output.stderr;
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(ALSO_SECRET);
    }
    const shown = JSON.parse(outputs[5]!.stdout) as { url: string };
    expect(shown.url).toContain('api_key=****');
    expect(shown.url).toContain('page=2');
    expect(shown.url).toContain('X-Amz-Signature=****');
    // The stored reason names what the server said, with the value masked.
    const history = JSON.parse(outputs[7]!.stdout) as {
      runs: { error: { message: string } | null }[];
    };
    const reasons = history.runs.map((run) => run.error?.message ?? '').join('\n');
    expect(reasons).toContain('api_key=****');
  });
});
