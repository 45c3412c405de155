// Which log fields are secret. The logger passes these paths to pino's `redact`; a field with one
// of these names is censored at the top level and up to three objects deep (pino's redaction has
// no recursive wildcard, so depth is listed explicitly). Deeper or unnamed secrets must be wrapped
// in `Secret`, which serializes as "[Redacted]" wherever it sits. Never does I/O.

/** Field names whose values are secret wherever they appear (case as written by our code and by HTTP). */
export const SECRET_FIELD_NAMES: readonly string[] = [
  'privateKey',
  'privateKeyPem',
  'apiKeySecret',
  'apiSecret',
  'secret',
  'password',
  'passphrase',
  'token',
  'accessToken',
  'refreshToken',
  'bearerToken',
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'signature',
];

/** Header names that carry a secret or a replayable signature, in the casings we and Node use. */
export const SECRET_HEADER_NAMES: readonly string[] = [
  'kalshi-access-signature',
  'KALSHI-ACCESS-SIGNATURE',
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'set-cookie',
];

const WILDCARD_DEPTHS = ['', '*.', '*.*.', '*.*.*.'];

function buildRedactPaths(): string[] {
  const paths: string[] = [];
  for (const prefix of WILDCARD_DEPTHS) {
    for (const name of SECRET_FIELD_NAMES) paths.push(prefix + name);
    for (const header of SECRET_HEADER_NAMES) paths.push(`${prefix}headers["${header}"]`);
  }
  return paths;
}

/** Paths for pino's `redact.paths`, built once. */
export const REDACT_PATHS: readonly string[] = Object.freeze(buildRedactPaths());
