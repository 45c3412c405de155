/**
 * Exchange request signing: the three KALSHI-ACCESS-* headers and the RSA-PSS signature over
 * `timestampMs + METHOD + path` (spec/rest.md §1). The path is the raw request path including the
 * `/trade-api/v2` prefix and without the query string; the body is never signed. Algorithm: RSA-PSS,
 * SHA-256, MGF1 SHA-256, salt length = digest length (32), standard base64 with padding.
 *
 * This file owns the message format, signing, verification (the simulator and tests use it) and
 * loading a private key from PEM text or a file. It never logs or keeps key material, never reads
 * the clock (callers pass the timestamp) and never decides when to sign: the exec layer's presigner
 * moves signing off the hot path. `src/exec/rest/presign-worker.mjs` repeats the message format in
 * plain JavaScript (the worker must load without a TypeScript loader); test/exec checks they agree.
 */

import { constants, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const ACCESS_KEY_HEADER = 'KALSHI-ACCESS-KEY';
export const ACCESS_SIGNATURE_HEADER = 'KALSHI-ACCESS-SIGNATURE';
export const ACCESS_TIMESTAMP_HEADER = 'KALSHI-ACCESS-TIMESTAMP';

/** The stable code of every failure of this file, for callers that branch on it. */
export type SigningErrorCode = 'SIGNING_KEY_INVALID' | 'SIGNING_INPUT_INVALID';

export class SigningError extends Error {
  readonly code: SigningErrorCode;
  constructor(code: SigningErrorCode, message: string) {
    super(message);
    this.name = 'SigningError';
    this.code = code;
  }
}

// Shared, frozen options object: crypto.sign reads it synchronously, so one instance serves every call.
const PSS_OPTIONS = Object.freeze({
  padding: constants.RSA_PKCS1_PSS_PADDING,
  saltLength: constants.RSA_PSS_SALTLEN_DIGEST, // 32 bytes for SHA-256
});

/**
 * The signed string: `1703123456789GET/trade-api/v2/portfolio/balance`. A query string, when the
 * caller passes one, is cut at '?' because the exchange signs the path only (passing it is a
 * caller slip that would otherwise give 401 INCORRECT_API_KEY_SIGNATURE).
 */
export function signatureMessage(timestampMs: number, method: string, path: string): string {
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) {
    throw new SigningError('SIGNING_INPUT_INVALID', 'signatureMessage: timestampMs must be a non-negative integer');
  }
  const query = path.indexOf('?');
  const pathOnly = query === -1 ? path : path.slice(0, query);
  return `${timestampMs}${method.toUpperCase()}${pathOnly}`;
}

/** Base64 RSA-PSS SHA-256 signature (salt 32) of the request message. About 1 ms for RSA-2048. */
export function signRequest(privateKey: KeyObject, timestampMs: number, method: string, path: string): string {
  const message = signatureMessage(timestampMs, method, path);
  return sign('sha256', Buffer.from(message, 'utf8'), { key: privateKey, ...PSS_OPTIONS }).toString('base64');
}

/**
 * The three KALSHI-ACCESS-* headers of one request (the signature over `timestampMs + METHOD +
 * path`, a query in `path` cut off). For requests off the hot path; exec presigns its own.
 */
export function signedHeaders(keyId: string, privateKey: KeyObject, timestampMs: number, method: string, path: string): Record<string, string> {
  return {
    [ACCESS_KEY_HEADER]: keyId,
    [ACCESS_TIMESTAMP_HEADER]: String(timestampMs),
    [ACCESS_SIGNATURE_HEADER]: signRequest(privateKey, timestampMs, method, path),
  };
}

/**
 * True when `signatureB64` is a valid signature of the request message. Accepts a private key too
 * (its public half is used). Salt length is fixed to 32 as the exchange uses: a signature made with
 * another salt length does not verify here.
 */
export function verifyRequest(
  publicKey: KeyObject,
  timestampMs: number,
  method: string,
  path: string,
  signatureB64: string,
): boolean {
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) return false;
  const signature = Buffer.from(signatureB64, 'base64');
  if (signature.length === 0) return false;
  const key = publicKey.type === 'private' ? createPublicKey(publicKey) : publicKey;
  try {
    return verify('sha256', Buffer.from(signatureMessage(timestampMs, method, path), 'utf8'), { key, ...PSS_OPTIONS }, signature);
  } catch {
    return false; // a malformed signature (wrong length) is a failed verification, not a crash
  }
}

/**
 * Loads an RSA private key from PEM text (PKCS#1 `BEGIN RSA PRIVATE KEY` or PKCS#8 `BEGIN PRIVATE
 * KEY`) or from the path of a file holding it. The error never quotes the key text.
 */
export function loadPrivateKey(pemOrPath: string): KeyObject {
  let pem = pemOrPath;
  if (!pemOrPath.includes('-----BEGIN')) {
    try {
      pem = readFileSync(pemOrPath, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new SigningError('SIGNING_KEY_INVALID', `loadPrivateKey: cannot read key file (${reason})`);
    }
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new SigningError('SIGNING_KEY_INVALID', 'loadPrivateKey: not a PEM private key (PKCS#1 or PKCS#8 expected)');
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new SigningError('SIGNING_KEY_INVALID', `loadPrivateKey: RSA key expected, got ${key.asymmetricKeyType ?? 'unknown'}`);
  }
  return key;
}
