// Goal: request verification accepts exactly the exchange's signing scheme (RSA-PSS SHA-256, salt
// 32, over timestamp_ms + METHOD + raw path) inside the timestamp window, and reports each failure
// with its documented 401 body (spec/rest.md §1). Method: sign with core's signRequest and with
// node:crypto variants (wrong salt, query signed, prefix missing) against a manual clock.

import { constants, createPrivateKey, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock, signRequest } from '../../../src/core/index.ts';
import {
  AUTH_FAILURE_BODIES,
  AuthFailure,
  ApiKeyStore,
  Authenticator,
  SUBACCOUNT_FORBIDDEN,
  resolveSubaccount,
  scopesAllow,
} from '../../../src/sim/auth/index.ts';

const clock = new ManualClock(1_781_821_370_000);
const store = new ApiKeyStore('basic');
const created = store.create({ scopes: ['read', 'write'] });
const keyId = created.record.keyId;
const privateKey = createPrivateKey(created.privateKeyPem);
const auth = new Authenticator(store, () => clock.nowMs());
const PATH = '/trade-api/v2/portfolio/balance';

function signed(ts: number, method: string, path: string): string {
  return signRequest(privateKey, ts, method, path);
}

describe('Authenticator', () => {
  it('accepts a correct signature and returns the key', () => {
    const ts = clock.nowMs();
    const result = auth.authenticate(keyId, String(ts), signed(ts, 'GET', PATH), 'get', PATH);
    expect(result.failure).toBe(AuthFailure.NONE);
    expect(result.key?.keyId).toBe(keyId);
  });

  it('rejects signatures over the query string, without the prefix, or another method', () => {
    const ts = clock.nowMs();
    const withQuery = sign('sha256', Buffer.from(`${ts}GET${PATH}?limit=5`), {
      key: privateKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    }).toString('base64');
    expect(auth.authenticate(keyId, String(ts), withQuery, 'GET', PATH).failure).toBe(AuthFailure.BAD_SIGNATURE);
    expect(auth.authenticate(keyId, String(ts), signed(ts, 'GET', '/portfolio/balance'), 'GET', PATH).failure).toBe(AuthFailure.BAD_SIGNATURE);
    expect(auth.authenticate(keyId, String(ts), signed(ts, 'POST', PATH), 'GET', PATH).failure).toBe(AuthFailure.BAD_SIGNATURE);
    expect(auth.authenticate(keyId, String(ts), 'not base64 at all!!', 'GET', PATH).failure).toBe(AuthFailure.BAD_SIGNATURE);
  });

  it('enforces the window: 10 s past, 30 s future by default', () => {
    const now = clock.nowMs();
    for (const [offset, ok] of [
      [-10_000, true],
      [-10_001, false],
      [30_000, true],
      [30_001, false],
    ] as const) {
      const ts = now + offset;
      const failure = auth.authenticate(keyId, String(ts), signed(ts, 'GET', PATH), 'GET', PATH).failure;
      expect(failure).toBe(ok ? AuthFailure.NONE : AuthFailure.TIMESTAMP_EXPIRED);
    }
    expect(auth.authenticate(keyId, 'yesterday', signed(now, 'GET', PATH), 'GET', PATH).failure).toBe(AuthFailure.TIMESTAMP_EXPIRED);
  });

  it('missing headers and unknown keys', () => {
    const ts = clock.nowMs();
    expect(auth.authenticate('', String(ts), 'x', 'GET', PATH).failure).toBe(AuthFailure.MISSING_HEADERS);
    expect(auth.authenticate(keyId, String(ts), '', 'GET', PATH).failure).toBe(AuthFailure.MISSING_HEADERS);
    expect(auth.authenticate('6b1c6f2e-0000-4000-8000-000000000000', String(ts), signed(ts, 'GET', PATH), 'GET', PATH).failure).toBe(AuthFailure.UNKNOWN_KEY);
  });

  it('401 bodies are nested under error with the documented codes', () => {
    expect(JSON.parse(AUTH_FAILURE_BODIES[AuthFailure.BAD_SIGNATURE])).toMatchObject({ error: { code: 'authentication_error', details: 'INCORRECT_API_KEY_SIGNATURE' } });
    expect(JSON.parse(AUTH_FAILURE_BODIES[AuthFailure.TIMESTAMP_EXPIRED]).error.code).toBe('header_timestamp_expired');
    expect(JSON.parse(AUTH_FAILURE_BODIES[AuthFailure.MISSING_HEADERS]).error.code).toBe('signature_is_missing_from_headers');
    expect(AUTH_FAILURE_BODIES[AuthFailure.UNKNOWN_KEY]).toContain('NOT_FOUND');
  });
});

describe('scopes and subaccount locks', () => {
  it('write::trade allows trading but not reads; read::portfolio_balance only the balance', () => {
    expect(scopesAllow(new Set(['write::trade']), 'trade')).toBe(true);
    expect(scopesAllow(new Set(['write::trade']), 'read')).toBe(false);
    expect(scopesAllow(new Set(['read']), 'trade')).toBe(false);
    expect(scopesAllow(new Set(['read::portfolio_balance']), 'balance')).toBe(true);
    expect(scopesAllow(new Set(['read::portfolio_balance']), 'read')).toBe(false);
  });

  it('a restricted key acts on its subaccount, refuses others', () => {
    const restricted = store.create({ scopes: ['read'], subaccount: 5 }).record;
    expect(resolveSubaccount(restricted, null, 0)).toBe(5);
    expect(resolveSubaccount(restricted, 5, 0)).toBe(5);
    expect(resolveSubaccount(restricted, 0, 0)).toBe(SUBACCOUNT_FORBIDDEN);
    expect(resolveSubaccount(created.record, null, 0)).toBe(0);
    expect(resolveSubaccount(created.record, 7, 0)).toBe(7);
    expect(() => store.create({ scopes: ['read'], subaccount: 64 })).toThrow(/0-63/);
  });
});
