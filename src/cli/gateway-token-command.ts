import type { CommandRun } from './command-run.js';
import { printLine } from './output.js';
import { cliStreams } from './streams.js';

/** `mcp-drift server gateway-token NAME`: a new token, printed once (docs/gateway.md). */
export async function gatewayTokenCommand(run: CommandRun): Promise<void> {
  const [name] = run.args as [string];
  const ctx = await run.context();
  const token = await ctx.withDatabase(async (db) => {
    const { getServer } = await import('../registry/servers-repo.js');
    const { issueGatewayToken } = await import('../gateway/gateway-tokens-repo.js');
    const server = await getServer(db, name);
    return await issueGatewayToken(db, server.id);
  });
  printLine(token);
  cliStreams().stderr.write(
    `the gateway token of ${name}; it replaces any previous one and is not shown again. ` +
      `Hosts send it as "Authorization: Bearer <token>" to serve's /gateway/${name}/mcp\n`,
  );
}
