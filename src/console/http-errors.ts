import { dataException } from '../db/sql-errors.js';
import { DriftError, isDriftError, type DriftErrorCode } from '../errors.js';

/** The HTTP status of each error code, for the console and its API (main.ts maps exit codes). */
const STATUS: Record<DriftErrorCode, number> = {
  USAGE: 400,
  INVALID_INPUT: 400,
  // An action the configuration does not allow yet (an alert with nobody to go to).
  CONFIG_INVALID: 409,
  SERVER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  SERVER_EXISTS: 409,
  CONFLICT: 409,
  DATABASE_UNREACHABLE: 503,
  DATABASE_BUSY: 503,
  REMOTE_UNREACHABLE: 502,
  REMOTE_TIMEOUT: 504,
  REMOTE_PROTOCOL: 502,
  NEEDS_LOGIN: 502,
  MAIL_UNREACHABLE: 502,
  INTERRUPTED: 503,
  THRESHOLD_REACHED: 409,
  // Not raised by a route (the console confirms on a page of its own).
  DECLINED: 409,
  INTERNAL: 500,
};

export function httpStatusOf(code: DriftErrorCode): number {
  return STATUS[code];
}

/**
 * The error a route's failure is answered with. The database refusing a value itself (a
 * NUL in a name from the URL, SQLSTATE class 22) is the request's fault: a 400 that says
 * so, not a 500 with a stack in the log.
 */
export function requestError(error: unknown): unknown {
  if (isDriftError(error) || !dataException(error)) return error;
  return new DriftError(
    'INVALID_INPUT',
    'the request holds a value the database cannot store or compare (such as a NUL character)',
    { cause: error },
  );
}
