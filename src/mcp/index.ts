// The MCP client side of mcp-drift: connect to a server, list all tools as raw JSON, close.
export {
  MODERN_PROTOCOL_VERSION,
  type ConnectSpec,
  type EnvironmentMap,
  type Era,
  type OAuthSettings,
} from './connect-spec.js';
export {
  DEFAULT_LISTING_CAPS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  listAllTools,
  type ListAllToolsOptions,
  type ListingCaps,
  type ToolListing,
} from './list-tools.js';
export { listPresentation, type PresentationListing } from './list-presentation.js';
export {
  clientInfoOf,
  probe,
  probeAsEach,
  type IdentityProbe,
  type ProbeFailure,
  type ProbeOptions,
  type ProbeResult,
  type ProbeSuccess,
} from './probe.js';
export {
  missingReferences,
  referencedVariables,
  resolveReferences,
  unresolvableReferences,
  type MissingReference,
} from './resolve-references.js';
export { openSession, type McpSession, type SessionOptions } from './session.js';
export { SpawnHelper, type Spawner } from './spawn-helper.js';
export { listenForRedirect, type LoopbackRedirect } from './loopback-redirect.js';
export { startLogin, type StartedLogin } from './oauth-login.js';
export type { OAuthTokenSet, OAuthTokenStore } from './oauth-tokens.js';
