/**
 * The demo API key a fresh simulator starts with: generated on first start into a keys directory
 * (default var/sim-keys/, gitignored) and reloaded on later starts, so a runtime config can point
 * at a stable key id and private key file. The private key file is written with mode 0600 and is
 * never logged. This file owns that directory's layout only:
 *
 *   <keysDir>/demo-key.json   {"keyId": "...", "scopes": [...], "tier": "...", "userId": "..."}
 *   <keysDir>/demo-key.pem    PKCS#8 RSA private key
 */

import { createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RateLimitTier } from '../rate-limit/index.ts';
import type { ApiKeyRecord, ApiKeyStore } from './api-key-store.ts';
import { SCOPES, type Scope } from './scopes.ts';

export const DEFAULT_KEYS_DIR = 'var/sim-keys';

export interface DemoKey {
  keyId: string;
  privateKeyPem: string;
  privateKeyPath: string;
  record: ApiKeyRecord;
}

interface DemoKeyFile {
  keyId: string;
  scopes?: Scope[];
  tier?: RateLimitTier;
  userId?: string;
}

/**
 * Loads the demo key from `keysDir`, creating it when absent, and registers it in `store` with
 * every scope, no subaccount lock, the given tier and user.
 */
export function loadOrCreateDemoKey(store: ApiKeyStore, keysDir: string, tier: RateLimitTier, userId: string): DemoKey {
  const dir = resolve(keysDir);
  const metaPath = join(dir, 'demo-key.json');
  const privateKeyPath = join(dir, 'demo-key.pem');
  let keyId: string;
  let privateKeyPem: string;
  if (existsSync(metaPath) && existsSync(privateKeyPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as DemoKeyFile;
    keyId = meta.keyId;
    privateKeyPem = readFileSync(privateKeyPath, 'utf8');
  } else {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    keyId = randomUUID();
    privateKeyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    writeFileSync(privateKeyPath, privateKeyPem, { mode: 0o600 });
    chmodSync(privateKeyPath, 0o600);
    const meta: DemoKeyFile = { keyId, scopes: [...SCOPES], tier, userId };
    writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`, { mode: 0o600 });
  }
  const record = store.register({ keyId, scopes: SCOPES, subaccount: null, tier, userId }, createPublicKey(privateKeyPem));
  return { keyId, privateKeyPem, privateKeyPath, record };
}
