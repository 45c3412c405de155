/**
 * The simulator's API keys: a UUID key id, an RSA public key, scopes, an optional subaccount lock
 * (0-63), a rate-limit tier and the owning user id (spec/interface-spec.md, Authentication). Keys
 * are created here with a fresh RSA key pair (the private half is returned once, never stored) or
 * registered from a public key. This file never verifies signatures.
 */

import { createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { RATE_LIMIT_TIERS, type RateLimitTier } from '../rate-limit/index.ts';
import { isScope, type Scope } from './scopes.ts';

export const SUBACCOUNT_MAX = 63;

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly publicKey: KeyObject;
  readonly scopes: ReadonlySet<Scope>;
  /** Subaccount the key is locked to, or null for a full-account key. */
  readonly subaccount: number | null;
  readonly tier: RateLimitTier;
  readonly userId: string;
  /** The owner's label (POST /api_keys `name`); the sim's keys get a descriptive default. */
  readonly name: string;
}

export interface ApiKeySpec {
  scopes: readonly Scope[];
  subaccount?: number | null;
  tier?: RateLimitTier;
  userId?: string;
  /** Fixed key id (demo key reloaded from disk); a random UUID otherwise. */
  keyId?: string;
  name?: string;
}

export class ApiKeyError extends Error {
  readonly code: 'SIM_API_KEY_INVALID' = 'SIM_API_KEY_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ApiKeyError';
  }
}

export const DEFAULT_USER_ID = 'a5e1d6f0-5c2b-4b8e-9b8e-0d3f2c1a7e01';

export class ApiKeyStore {
  readonly #keys = new Map<string, ApiKeyRecord>();
  readonly #regionExpirationTs = new Map<string, number>();
  readonly #defaultTier: RateLimitTier;

  constructor(defaultTier: RateLimitTier = 'basic') {
    this.#defaultTier = defaultTier;
  }

  get(keyId: string): ApiKeyRecord | undefined {
    return this.#keys.get(keyId);
  }

  get size(): number {
    return this.#keys.size;
  }

  /** Creates a key with a new 2048-bit RSA pair; the private key PEM (PKCS#8) is returned, not kept. */
  create(spec: ApiKeySpec): { record: ApiKeyRecord; privateKeyPem: string } {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const record = this.register(spec, publicKey);
    return { record, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  }

  /** Registers a key whose public half is known (PEM text or KeyObject). */
  register(spec: ApiKeySpec, publicKey: KeyObject | string): ApiKeyRecord {
    const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
    if (key.asymmetricKeyType !== 'rsa') throw new ApiKeyError('API keys must be RSA');
    if (!Array.isArray(spec.scopes) || spec.scopes.length === 0) throw new ApiKeyError('an API key needs at least one scope');
    for (const scope of spec.scopes) if (!isScope(scope)) throw new ApiKeyError(`unknown scope ${JSON.stringify(scope)}`);
    const subaccount = spec.subaccount ?? null;
    if (subaccount !== null && !(Number.isInteger(subaccount) && subaccount >= 0 && subaccount <= SUBACCOUNT_MAX)) {
      throw new ApiKeyError(`subaccount must be an integer 0-${SUBACCOUNT_MAX}, got ${String(subaccount)}`);
    }
    const keyId = spec.keyId ?? randomUUID();
    const record: ApiKeyRecord = {
      keyId,
      publicKey: key,
      scopes: new Set(spec.scopes),
      subaccount,
      tier: spec.tier ?? this.#defaultTier,
      userId: spec.userId ?? DEFAULT_USER_ID,
      name: spec.name ?? (subaccount === null ? 'sim key' : `sim key (subaccount ${subaccount})`),
    };
    this.#keys.set(keyId, record);
    return record;
  }

  remove(keyId: string): boolean {
    return this.#keys.delete(keyId);
  }

  /** The user's keys in creation order (GET /api_keys). */
  listByUser(userId: string): ApiKeyRecord[] {
    const out: ApiKeyRecord[] = [];
    for (const record of this.#keys.values()) if (record.userId === userId) out.push(record);
    return out;
  }

  /**
   * Raises every key of `userId` to at least `tier` (a grant is per account, the sim's tiers are per
   * key): records are replaced, so requests already holding the old record finish at the old tier.
   */
  raiseUserTier(userId: string, tier: RateLimitTier): void {
    const rank = RATE_LIMIT_TIERS.indexOf(tier);
    for (const [keyId, record] of this.#keys) {
      if (record.userId !== userId || RATE_LIMIT_TIERS.indexOf(record.tier) >= rank) continue;
      this.#keys.set(keyId, { ...record, tier });
    }
  }

  /**
   * When the account's location attestation expires, unix seconds (interface-spec Authentication 3);
   * null: never attested (the field is then absent from GET /api_keys).
   */
  setRegionExpiration(userId: string, expirationTs: number | null): void {
    if (expirationTs === null) this.#regionExpirationTs.delete(userId);
    else this.#regionExpirationTs.set(userId, expirationTs);
  }

  regionExpiration(userId: string): number | null {
    return this.#regionExpirationTs.get(userId) ?? null;
  }
}
