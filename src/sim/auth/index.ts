/**
 * Public surface of the simulator's authentication: API keys with scopes, subaccount locks and
 * tiers; RSA-PSS request verification with the exchange's 401 bodies; the demo key on disk.
 */

export { ApiKeyStore, ApiKeyError, DEFAULT_USER_ID, SUBACCOUNT_MAX, type ApiKeyRecord, type ApiKeySpec } from './api-key-store.ts';
export {
  ACCESS_KEY_HEADER,
  ACCESS_SIGNATURE_HEADER,
  ACCESS_TIMESTAMP_HEADER,
  AUTH_FAILURE_BODIES,
  AuthFailure,
  Authenticator,
  DEFAULT_TIMESTAMP_WINDOW,
  verifyPss,
  type AuthResult,
  type TimestampWindow,
} from './authenticator.ts';
export { SCOPES, isScope, scopesAllow, type Scope, type ScopeNeed } from './scopes.ts';
export { SUBACCOUNT_FORBIDDEN, keyCoversSubaccount, resolveSubaccount } from './subaccount-scope.ts';
export { DEFAULT_KEYS_DIR, loadOrCreateDemoKey, type DemoKey } from './demo-keys.ts';
