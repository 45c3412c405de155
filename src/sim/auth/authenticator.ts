/**
 * Request authentication (spec/rest.md §1, websocket.md §1.2): the three KALSHI-ACCESS-* headers,
 * an RSA-PSS SHA-256 signature (salt 32 bytes) over `timestamp_ms + METHOD + path`, where path is
 * the raw request path up to '?' including /trade-api/v2, and a timestamp window (default 10 s in
 * the past, 30 s in the future, matching what rest.md §1 saw on demo). Failures are codes, and each
 * has the exact 401 body rest.md §1 recorded. This file never routes and never checks scopes.
 *
 * Check order (not documented; ours): any header missing, unknown key, timestamp, signature.
 * An unparseable timestamp is reported as expired (it cannot lie inside the window).
 */

import { constants, verify } from 'node:crypto';
import type { ApiKeyRecord, ApiKeyStore } from './api-key-store.ts';

export const ACCESS_KEY_HEADER = 'kalshi-access-key';
export const ACCESS_SIGNATURE_HEADER = 'kalshi-access-signature';
export const ACCESS_TIMESTAMP_HEADER = 'kalshi-access-timestamp';

export const AuthFailure = {
  NONE: 0,
  MISSING_HEADERS: 1,
  UNKNOWN_KEY: 2,
  TIMESTAMP_EXPIRED: 3,
  BAD_SIGNATURE: 4,
} as const;
export type AuthFailure = (typeof AuthFailure)[keyof typeof AuthFailure];

export interface TimestampWindow {
  /** Oldest accepted timestamp, ms before now. */
  pastMs: number;
  /** Newest accepted timestamp, ms after now. */
  futureMs: number;
}

export const DEFAULT_TIMESTAMP_WINDOW: Readonly<TimestampWindow> = { pastMs: 10_000, futureMs: 30_000 };

/** The 401 bodies of rest.md §1, nested under "error" as the exchange sends them. */
export const AUTH_FAILURE_BODIES: Readonly<Record<Exclude<AuthFailure, 0>, string>> = {
  [AuthFailure.MISSING_HEADERS]: JSON.stringify({
    error: { code: 'signature_is_missing_from_headers', message: 'KALSHI-ACCESS-KEY, KALSHI-ACCESS-SIGNATURE and KALSHI-ACCESS-TIMESTAMP headers are required' },
  }),
  [AuthFailure.UNKNOWN_KEY]: JSON.stringify({
    error: { code: 'authentication_error', message: 'api key not found', details: 'NOT_FOUND' },
  }),
  [AuthFailure.TIMESTAMP_EXPIRED]: JSON.stringify({
    error: { code: 'header_timestamp_expired', message: 'KALSHI-ACCESS-TIMESTAMP is outside the accepted window' },
  }),
  [AuthFailure.BAD_SIGNATURE]: JSON.stringify({
    error: { code: 'authentication_error', message: 'authentication failed', details: 'INCORRECT_API_KEY_SIGNATURE' },
  }),
};

/** Outcome of one authentication; `key` is set only when `failure` is NONE. */
export interface AuthResult {
  failure: AuthFailure;
  key: ApiKeyRecord | null;
}

/** Decimal digits only, at most 16 (a ms timestamp has 13); -1 otherwise. */
function parseTimestampMs(text: string): number {
  if (text.length === 0 || text.length > 16) return -1;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** True when `signatureB64` is a valid RSA-PSS SHA-256 (salt 32) signature of `message`. */
export function verifyPss(record: ApiKeyRecord, message: string, signatureB64: string): boolean {
  const signature = Buffer.from(signatureB64, 'base64');
  if (signature.length === 0) return false;
  try {
    return verify(
      'sha256',
      Buffer.from(message, 'utf8'),
      { key: record.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
      signature,
    );
  } catch {
    return false; // wrong length for the modulus and similar: just a bad signature
  }
}

export class Authenticator {
  readonly #store: ApiKeyStore;
  readonly #now: () => number;
  window: TimestampWindow;

  constructor(store: ApiKeyStore, now: () => number, window: TimestampWindow = DEFAULT_TIMESTAMP_WINDOW) {
    this.#store = store;
    this.#now = now;
    this.window = { pastMs: window.pastMs, futureMs: window.futureMs };
  }

  /**
   * Checks one request. `method` is the HTTP verb (any case), `rawPath` the path as sent, before
   * '?', not percent-decoded. Header values are '' when absent.
   */
  authenticate(keyId: string, timestampText: string, signatureB64: string, method: string, rawPath: string): AuthResult {
    if (keyId === '' || timestampText === '' || signatureB64 === '') return { failure: AuthFailure.MISSING_HEADERS, key: null };
    const key = this.#store.get(keyId);
    if (key === undefined) return { failure: AuthFailure.UNKNOWN_KEY, key: null };
    const timestampMs = parseTimestampMs(timestampText);
    const nowMs = this.#now();
    if (timestampMs < 0 || timestampMs < nowMs - this.window.pastMs || timestampMs > nowMs + this.window.futureMs) {
      return { failure: AuthFailure.TIMESTAMP_EXPIRED, key: null };
    }
    if (!verifyPss(key, timestampText + method.toUpperCase() + rawPath, signatureB64)) {
      return { failure: AuthFailure.BAD_SIGNATURE, key: null };
    }
    return { failure: AuthFailure.NONE, key };
  }
}
