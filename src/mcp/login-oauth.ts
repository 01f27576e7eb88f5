import {
  OAuthError,
  OAuthErrorCode,
  refreshAuthorization,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthClientInformationContext,
  type OAuthTokens,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { DriftError } from '../errors.js';
import { redactFromLogs } from '../log-lines.js';
import { discoverAuthorization, type DiscoveredAuthorization } from './oauth-discovery.js';
import { EXPIRY_MARGIN_MS, type OAuthState } from './oauth-client.js';
import { loginClientMetadata, tokenSetOf } from './oauth-login.js';
import type { OAuthTokenSet, OAuthTokenStore } from './oauth-tokens.js';

/*
 * The SDK's OAuth client provider for a server a person logged in to (`--oauth`,
 * docs/oauth.md). Tokens come from the store before connecting; a token about to expire is
 * refreshed before it is sent, a 401 gets the SDK's one refresh, and every new token set
 * (a rotated refresh token included) goes back to the store. A refresh the authorization
 * server refuses (`invalid_grant`), or a 401 on a token just refreshed, means a person must
 * log in again: the store is told (`needs_login`) and the connection fails with
 * NEEDS_LOGIN, without a login ever being started from here.
 */

export interface LoginOAuthSettings {
  name: string;
  serverUrl: URL;
  /** Pre-registered; null: the dynamically registered client in the store. */
  clientId: string | null;
  clientSecret: string | undefined;
}

export class LoginOAuth implements OAuthClientProvider {
  readonly learned: OAuthState = { authorizationServer: null, expiresAt: null, scope: null };
  /** Set once a person must log in again; the connection's failure says so. */
  loginNeeded = false;
  private current: OAuthTokenSet | null = null;
  private client: StoredOAuthClientInformation | undefined;
  private discovered: DiscoveredAuthorization | undefined;
  private refreshing: Promise<void> | undefined;
  private refusing: Promise<void> | undefined;
  /** The refresh token of tokens the SDK dropped after a refusal. */
  private dropped: string | null = null;
  /** A 401 came and no success since; a refresh after it that meets another 401 is final. */
  private unanswered401 = false;
  private refreshedSince401 = false;

  constructor(
    private readonly settings: LoginOAuthSettings,
    private readonly store: OAuthTokenStore,
    private readonly now: () => number = Date.now,
  ) {
    redactFromLogs([settings.clientSecret]);
  }

  /**
   * Before connecting: no stored tokens means no request is sent at all (a server waiting
   * for a login is not knocked on every probe); a token about to expire is refreshed.
   */
  async prepare(): Promise<void> {
    const [tokens, registered] = await Promise.all([this.store.load(), this.loadClient()]);
    if (!tokens || !registered) throw this.needsLoginError();
    this.client = registered;
    this.use(tokens);
    if (this.expiring()) await this.refresh();
  }

  needsLoginError(): DriftError {
    return new DriftError(
      'NEEDS_LOGIN',
      `login needed for ${this.settings.name}: run \`mcp-drift server login ${this.settings.name}\``,
    );
  }

  get redirectUrl(): string {
    // Never visited: a connection does not start a login. Its presence tells the SDK this is
    // an interactive client, whose 401 path refreshes with the refresh token.
    return 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return loginClientMetadata(this.redirectUrl);
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }

  async tokens(context?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    if (!context && this.expiring() && this.current?.refreshToken) await this.refresh();
    return this.stored();
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const set = tokenSetOf(tokens, tokens.issuer ?? this.current?.authorizationServer ?? '');
    // A refresh response may omit the refresh token: the old one stays valid (RFC 6749 §6).
    set.refreshToken ??= this.current?.refreshToken ?? null;
    this.use(set);
    this.refreshedSince401 = true;
    await this.store.save(set);
  }

  redirectToAuthorization(): never {
    this.refuse();
    throw this.needsLoginError();
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw this.needsLoginError();
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'tokens' || scope === 'all') {
      this.dropped = this.current?.refreshToken ?? null;
      this.current = null;
    }
    if (scope === 'client' || scope === 'all') this.client = undefined;
  }

  /** Every response to the server passes here (create-transport.ts wraps its fetch). */
  sawStatus(status: number): void {
    if (status !== 401) {
      if (status < 400) this.unanswered401 = false;
      return;
    }
    if (this.unanswered401 && this.refreshedSince401) this.refuse();
    this.unanswered401 = true;
    this.refreshedSince401 = false;
  }

  /** Resolves once the store knows of a refusal, if there was one. */
  async settled(): Promise<void> {
    await this.refusing;
  }

  private use(tokens: OAuthTokenSet): void {
    redactFromLogs([tokens.accessToken, tokens.refreshToken ?? undefined]);
    this.current = tokens;
    this.learned.expiresAt = tokens.expiresAt;
    this.learned.scope = tokens.scope;
    this.learned.authorizationServer = tokens.authorizationServer;
  }

  private stored(): StoredOAuthTokens | undefined {
    const tokens = this.current;
    if (!tokens) return undefined;
    const expiresIn =
      tokens.expiresAt === null
        ? undefined
        : Math.max(0, Math.floor((tokens.expiresAt.getTime() - this.now()) / 1000));
    return {
      access_token: tokens.accessToken,
      token_type: 'Bearer',
      ...(tokens.refreshToken === null ? {} : { refresh_token: tokens.refreshToken }),
      ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
      ...(tokens.scope === null ? {} : { scope: tokens.scope }),
      ...(tokens.authorizationServer ? { issuer: tokens.authorizationServer } : {}),
    };
  }

  private expiring(): boolean {
    const expiresAt = this.current?.expiresAt?.getTime();
    return expiresAt !== undefined && expiresAt - EXPIRY_MARGIN_MS <= this.now();
  }

  private async loadClient(): Promise<StoredOAuthClientInformation | undefined> {
    if (this.settings.clientId !== null) {
      return {
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret === undefined
          ? {}
          : { client_secret: this.settings.clientSecret }),
      };
    }
    const registered = await this.store.loadClient();
    if (!registered) return undefined;
    redactFromLogs([registered['client_secret'] as string | undefined]);
    return registered as unknown as StoredOAuthClientInformation;
  }

  /** One refresh at a time, whoever asks (a probe's requests may overlap). */
  private refresh(): Promise<void> {
    this.refreshing ??= this.refreshOnce().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refreshOnce(): Promise<void> {
    // Another connection (a probe, the held session) may have refreshed first: with rotation
    // the refresh token held here is spent, and the stored one is the one to use.
    const latest = await this.store.load();
    if (latest && latest.refreshToken !== this.current?.refreshToken) {
      this.use(latest);
      if (!this.expiring()) return;
    }
    const refreshToken = this.current?.refreshToken;
    const client = this.client;
    if (!refreshToken || !client) {
      this.refuse();
      throw this.needsLoginError();
    }
    this.discovered ??= await discoverAuthorization(this.settings.serverUrl);
    const { info, resource } = this.discovered;
    let tokens: OAuthTokens;
    try {
      tokens = await refreshAuthorization(info.authorizationServerUrl, {
        metadata: info.authorizationServerMetadata,
        clientInformation: client as OAuthClientInformationMixed,
        refreshToken,
        resource,
      });
    } catch (error) {
      if (
        error instanceof OAuthError &&
        [
          OAuthErrorCode.InvalidGrant,
          OAuthErrorCode.InvalidClient,
          OAuthErrorCode.UnauthorizedClient,
        ].includes(error.code as OAuthErrorCode)
      ) {
        this.refuse();
        throw this.needsLoginError();
      }
      throw new DriftError(
        'REMOTE_UNREACHABLE',
        `refreshing the OAuth token of ${this.settings.name} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    await this.saveTokens({
      ...tokens,
      issuer: info.authorizationServerMetadata?.issuer ?? info.authorizationServerUrl,
    });
  }

  private refuse(): void {
    if (this.loginNeeded) return;
    this.loginNeeded = true;
    const refused = this.current?.refreshToken ?? this.dropped ?? null;
    this.current = null;
    this.refusing = this.store.refused(refused);
    this.refusing.catch(() => {});
  }
}
