/**
 * The clearing client's failures: one error class with a stable `code` that callers, the command
 * and tests branch on (STYLE §4: I/O failures are coded error classes). CLEARING_ERROR_CODES is the
 * closed set with a sentence each; docs/clearing.md lists every code (a test checks it).
 * Messages never contain the access token: the client never puts the Authorization header or the
 * credential text into one.
 */

export const CLEARING_ERROR_CODES = {
  CLEARING_UNAUTHORIZED: 'HTTP 401: the credential is missing, malformed or unknown to the server',
  CLEARING_FORBIDDEN: 'HTTP 403: the credential is valid but not permitted to read this resource',
  CLEARING_CLIENT_ERROR: 'another HTTP 4xx (404 unknown obligation, 429 rate limited, ...); status and the server code attached',
  CLEARING_SERVER_ERROR: 'HTTP 5xx; not retried (no retries at all: the caller decides)',
  CLEARING_UNEXPECTED_STATUS: 'a status that is neither 2xx nor 4xx/5xx (1xx, 3xx): redirects are not followed',
  CLEARING_MALFORMED_BODY: 'the body is not UTF-8 JSON, or lacks a required field, or has a field of the wrong type (the JSON path is named)',
  CLEARING_INT64_RANGE: 'a money field is an integer outside the int64 range',
  CLEARING_BODY_TOO_LARGE: 'the body exceeded the client\'s byte limit (maxBodyBytes)',
  CLEARING_TIMEOUT: 'connect, headers or body timeout, or the pager\'s overall deadline',
  CLEARING_UNREACHABLE: 'the connection failed (refused, reset, DNS)',
  CLEARING_PAGING: 'a detail route did not make progress (repeated cursor, empty page with a cursor), exceeded the page limit, or disagreed with the inline rows',
  CLEARING_BAD_CREDENTIAL: 'the credential text is not admin_user_id:access_token, or its file cannot be read',
  CLEARING_BAD_URL: 'the base URL is not an http(s) URL',
} as const;

export type ClearingErrorCode = keyof typeof CLEARING_ERROR_CODES;

export class ClearingError extends Error {
  override readonly name = 'ClearingError';

  constructor(
    readonly code: ClearingErrorCode,
    message: string,
    /** HTTP status when the server answered, else 0. */
    readonly status: number = 0,
    /** The error body's `code` when the server sent one, else ''. */
    readonly serverCode: string = '',
  ) {
    super(message);
  }
}
