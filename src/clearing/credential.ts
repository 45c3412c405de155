/**
 * A clearing-member credential (interface-spec Authentication, clearing part): an admin user id and
 * an access token, sent as `Authorization: Bearer <admin_user_id>:<access_token>`. Read from text
 * (`admin_user_id:access_token`, the CLEARING_CREDENTIAL form) or from a file holding either that
 * line or the JSON the simulator writes ({adminUserId, accessToken, url?, memberUserId?}). The
 * token lives only in this object and the header; toString and toJSON hide it so a stray log
 * line cannot print it.
 */

import { readFileSync } from 'node:fs';
import { ClearingError } from './clearing-error.ts';

export class ClearingCredential {
  readonly adminUserId: string;
  readonly #accessToken: string;

  constructor(adminUserId: string, accessToken: string) {
    // Header-safe: printable ASCII without spaces, and no ':' in the id (it separates the two).
    if (!/^[\x21-\x39\x3b-\x7e]{1,256}$/.test(adminUserId)) throw new ClearingError('CLEARING_BAD_CREDENTIAL', 'admin_user_id must be 1-256 printable characters without spaces or ":"');
    if (!/^[\x21-\x7e]{1,1024}$/.test(accessToken)) throw new ClearingError('CLEARING_BAD_CREDENTIAL', 'access_token must be 1-1024 printable characters without spaces');
    this.adminUserId = adminUserId;
    this.#accessToken = accessToken;
  }

  /** The Authorization header value. */
  authorization(): string {
    return `Bearer ${this.adminUserId}:${this.#accessToken}`;
  }

  toString(): string {
    return `ClearingCredential(${this.adminUserId}:***)`;
  }

  toJSON(): { adminUserId: string } {
    return { adminUserId: this.adminUserId };
  }
}

/** `admin_user_id:access_token` (surrounding white space ignored). */
export function parseCredentialText(text: string): ClearingCredential {
  const value = text.trim();
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) throw new ClearingError('CLEARING_BAD_CREDENTIAL', 'expected admin_user_id:access_token');
  return new ClearingCredential(value.slice(0, colon), value.slice(colon + 1));
}

export interface CredentialFile {
  credential: ClearingCredential;
  /** The clearing base URL the file names (the simulator writes its own), else null. */
  url: string | null;
}

/** Files larger than this are not credentials (and are not read whole). */
const CREDENTIAL_FILE_BYTES_MAX = 64 * 1024;

export function readCredentialFile(path: string): CredentialFile {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > CREDENTIAL_FILE_BYTES_MAX) throw new ClearingError('CLEARING_BAD_CREDENTIAL', `credential file ${path} is larger than ${CREDENTIAL_FILE_BYTES_MAX} bytes`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof ClearingError) throw error;
    throw new ClearingError('CLEARING_BAD_CREDENTIAL', `cannot read credential file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!text.trimStart().startsWith('{')) return { credential: parseCredentialText(text), url: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // No detail from the parser: its message may quote the file, token included.
    throw new ClearingError('CLEARING_BAD_CREDENTIAL', `credential file ${path} is not valid JSON`);
  }
  const record = parsed as { adminUserId?: unknown; accessToken?: unknown; url?: unknown };
  if (typeof record.adminUserId !== 'string' || typeof record.accessToken !== 'string') {
    throw new ClearingError('CLEARING_BAD_CREDENTIAL', `credential file ${path} needs string fields adminUserId and accessToken`);
  }
  return { credential: new ClearingCredential(record.adminUserId, record.accessToken), url: typeof record.url === 'string' ? record.url : null };
}
