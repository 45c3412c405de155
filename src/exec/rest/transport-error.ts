/**
 * Maps a transport failure (an undici or socket error) or an HTTP status to the ExecErrorCode a
 * caller branches on. Owns the mapping table only; never decides whether the outcome is a reject
 * or unknown (rest-order-entry.ts does, by request kind).
 */

import type { NetFailure } from '../../net/index.ts';
import type { ExecErrorCode } from '../../oms/index.ts';

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT', // no response headers within headersTimeoutMs
  'UND_ERR_BODY_TIMEOUT', // body stalled longer than bodyTimeoutMs
  'UND_ERR_CONNECT_TIMEOUT', // TCP/TLS connect slower than connectTimeoutMs
  'ETIMEDOUT',
]);

/**
 * Timeout codes are EXEC_TIMEOUT; everything else (UND_ERR_SOCKET "other side closed",
 * ECONNRESET, ECONNREFUSED, EPIPE, UND_ERR_CLOSED/DESTROYED/ABORTED, unknown errors) is
 * EXEC_DISCONNECTED: the request may or may not have reached the exchange.
 */
export function transportErrorCode(error: unknown): ExecErrorCode {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return 'EXEC_TIMEOUT';
  return 'EXEC_DISCONNECTED';
}

/** The ExecErrorCode of a non-2xx status (reads and admin calls, which throw ExecError). */
export function statusErrorCode(status: number): ExecErrorCode {
  if (status === 429) return 'EXEC_RATE_LIMITED';
  if (status >= 500) return 'EXEC_HTTP_5XX';
  if (status >= 400) return 'EXEC_REJECTED';
  return 'EXEC_BAD_RESPONSE';
}

/** The route's code for a raw HTTP failure: a full queue is refused like a 429 (never written). */
export function netFailureCode(failure: NetFailure): ExecErrorCode {
  switch (failure) {
    case 'NET_TIMEOUT':
      return 'EXEC_TIMEOUT';
    case 'NET_BAD_RESPONSE':
      return 'EXEC_BAD_RESPONSE';
    case 'NET_QUEUE_FULL':
      return 'EXEC_RATE_LIMITED';
    default:
      return 'EXEC_DISCONNECTED';
  }
}
