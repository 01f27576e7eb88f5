/**
 * The one error type mcp-drift throws on purpose. `code` says what kind of failure it is;
 * `src/cli/run-cli.ts` is the only place that maps codes to exit codes (docs/design.md §7).
 * Messages are written for the person at the terminal: say what to fix.
 */
export type DriftErrorCode =
  // exit 2: bad usage or bad input
  | 'USAGE'
  | 'INVALID_INPUT'
  | 'CONFIG_INVALID'
  // exit 3: not found or conflict
  | 'SERVER_NOT_FOUND'
  | 'SERVER_EXISTS'
  | 'NOT_FOUND'
  // what the request was based on is no longer so (the listing moved since it was reviewed)
  | 'CONFLICT'
  // exit 4: something we depend on is unreachable
  | 'DATABASE_UNREACHABLE'
  | 'DATABASE_BUSY'
  | 'REMOTE_UNREACHABLE'
  | 'REMOTE_TIMEOUT'
  | 'REMOTE_PROTOCOL'
  | 'MAIL_UNREACHABLE'
  // the server's authorization server refused our tokens: a person must log in again
  | 'NEEDS_LOGIN'
  // exit 130: stopped by SIGINT/SIGTERM before it finished
  | 'INTERRUPTED'
  // exit 1
  | 'THRESHOLD_REACHED'
  // the person at the terminal answered no to a confirmation: nothing was changed
  | 'DECLINED'
  | 'INTERNAL';

export class DriftError extends Error {
  readonly code: DriftErrorCode;

  constructor(code: DriftErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DriftError';
    this.code = code;
  }
}

export function isDriftError(error: unknown): error is DriftError {
  return error instanceof DriftError;
}
