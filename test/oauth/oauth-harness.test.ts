import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProtectedServer } from '../support/oauth-mcp-server.js';

/*
 * The OAuth test harness itself, driven by the SDK's own client: what the mcp-drift tests
 * rely on (a 401 that names the metadata, discovery, client credentials, dynamic
 * registration, JWT tokens for the resource) holds.
 */

let protectedServer: Awaited<ReturnType<typeof startProtectedServer>>;

beforeAll(async () => {
  protectedServer = await startProtectedServer({ accessTokenTtl: 60 });
});
afterAll(() => protectedServer?.stop());

describe('the protected MCP server', () => {
  it('answers 401 with WWW-Authenticate naming its protected-resource metadata', async () => {
    const response = await fetch(protectedServer.mcp.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBeDefined();
    const metadata = (await (await fetch(metadataUrl!)).json()) as Record<string, unknown>;
    expect(metadata.resource).toBe(protectedServer.mcp.url);
    expect(metadata.authorization_servers).toEqual([protectedServer.provider.issuer]);
  });

  it('lists tools for a client-credentials client that discovered everything from the 401', async () => {
    const { clientId, clientSecret } = protectedServer.provider.machineClient;
    const authProvider = new ClientCredentialsProvider({
      clientId,
      clientSecret,
      expectedIssuer: protectedServer.provider.issuer,
    });
    const client = new Client({ name: 'harness', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(protectedServer.mcp.url), { authProvider }),
    );
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['close_ticket', 'read_ticket']);
    const token = authProvider.tokens()?.access_token ?? '';
    // A JWT whose audience is the MCP server (RFC 8707 resource indicator).
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    expect(payload).toMatchObject({ aud: protectedServer.mcp.url, scope: 'mcp' });
    expect(protectedServer.provider.issued.map((grant) => grant.grantType)).toContain(
      'client_credentials',
    );
  });

  it('registers clients dynamically (RFC 7591)', async () => {
    const response = await fetch(`${protectedServer.provider.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://127.0.0.1:9/callback'],
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { client_id?: string }).client_id).toBeTruthy();
  });

  it('refuses a token that was not issued by its authorization server', async () => {
    const response = await fetch(protectedServer.mcp.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer not-a-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
  });
});
