/**
 * The demo clearing-member credential a simulator starts with, so `npm run sim` and then
 * `npm run clearing -- obligations` work without setup: generated on first start into the keys
 * directory beside the demo API key, reloaded on later starts (same admin user id and token), and
 * rewritten each start with the base URL of this run (the port may change). The file is mode 0600
 * and is never logged; the ready line names only its path. Layout:
 *
 *   <keysDir>/clearing-credential.json
 *     {"adminUserId": "...", "accessToken": "...", "memberUserId": "...", "url": "http://HOST:PORT/clearing-api/v1"}
 *
 * The credential acts for `memberUserId` (the demo user) with both permissions.
 */

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ClearingCredential, ClearingCredentials } from './credentials.ts';

export const DEMO_CLEARING_CREDENTIAL_FILE = 'clearing-credential.json';

export interface DemoClearingCredential {
  credential: ClearingCredential;
  /** Absolute path of the credential file. */
  path: string;
  /** The clearing base URL written into the file. */
  url: string;
}

interface DemoClearingFile {
  adminUserId?: unknown;
  accessToken?: unknown;
  memberUserId?: unknown;
}

/** Loads (or creates) the demo credential for `memberUserId`, registers it, writes `url` beside it. */
export function loadOrCreateDemoClearingCredential(store: ClearingCredentials, keysDir: string, memberUserId: string, url: string): DemoClearingCredential {
  const dir = resolve(keysDir);
  const path = join(dir, DEMO_CLEARING_CREDENTIAL_FILE);
  let adminUserId: string | null = null;
  let accessToken: string | null = null;
  if (existsSync(path)) {
    try {
      const meta = JSON.parse(readFileSync(path, 'utf8')) as DemoClearingFile;
      // A file for another member (or a damaged one) is replaced, not trusted.
      if (typeof meta.adminUserId === 'string' && typeof meta.accessToken === 'string' && meta.memberUserId === memberUserId && /^[\x21-\x39\x3b-\x7e]{1,256}$/.test(meta.adminUserId) && /^[\x21-\x7e]{16,1024}$/.test(meta.accessToken)) {
        adminUserId = meta.adminUserId;
        accessToken = meta.accessToken;
      }
    } catch {
      // unreadable: make a new one below
    }
  }
  if (adminUserId === null || accessToken === null) {
    adminUserId = `demo-admin-${randomBytes(4).toString('hex')}`;
    accessToken = randomBytes(24).toString('base64url');
  }
  const credential = store.register({ adminUserId, accessToken, memberUserId, permissions: ['obligations', 'funding'] });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written to a temporary name and renamed, so a reader never sees half a file.
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ adminUserId, accessToken, memberUserId, url }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return { credential, path, url };
}
