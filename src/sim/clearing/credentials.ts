/**
 * Clearing-member API credentials (interface-spec Authentication, clearing part): an admin user id
 * and an access token, presented as `Authorization: Bearer <admin_user_id>:<access_token>` (scheme in any case). Each
 * credential acts for one clearing member (a simulator user) and may be limited in what it can
 * read: `obligations` and `funding` permissions (403 when the needed one is missing). Tokens are
 * compared in constant time. This file owns the store; it never sees a request.
 */

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ObligationBacklog } from './backlog.ts';

export type ClearingPermission = 'obligations' | 'funding';

export interface ClearingCredential {
  readonly adminUserId: string;
  readonly accessToken: string;
  /** The clearing member (simulator user id) the credential acts for. */
  readonly memberUserId: string;
  readonly permissions: readonly ClearingPermission[];
}

export const ClearingAuthFailure = { NONE: 0, MISSING: 1, MALFORMED: 2, UNKNOWN: 3 } as const;
export type ClearingAuthFailure = (typeof ClearingAuthFailure)[keyof typeof ClearingAuthFailure];

export class ClearingCredentials {
  readonly #byAdmin = new Map<string, ClearingCredential>();
  /** Earlier cycles' obligations per member (backlog.ts), kept beside the members' credentials. */
  readonly backlog = new ObligationBacklog();
  #counter = 0;

  /** Issues a credential for `memberUserId` (as the member's Security page would). */
  issue(memberUserId: string, permissions: readonly ClearingPermission[] = ['obligations', 'funding']): ClearingCredential {
    this.#counter++;
    const credential: ClearingCredential = {
      adminUserId: `admin-${this.#counter}-${randomBytes(4).toString('hex')}`,
      accessToken: randomBytes(24).toString('base64url'),
      memberUserId,
      permissions: Object.freeze([...permissions]),
    };
    this.#byAdmin.set(credential.adminUserId, credential);
    return credential;
  }

  /**
   * Registers a credential made elsewhere (the demo credential reloaded from disk). An admin id
   * already known is replaced.
   */
  register(credential: ClearingCredential): ClearingCredential {
    const frozen: ClearingCredential = { ...credential, permissions: Object.freeze([...credential.permissions]) };
    this.#byAdmin.set(frozen.adminUserId, frozen);
    return frozen;
  }

  revoke(adminUserId: string): void {
    this.#byAdmin.delete(adminUserId);
  }

  /** The credential an Authorization header value names, or why not. */
  authenticate(header: string): ClearingCredential | ClearingAuthFailure {
    if (header === '') return ClearingAuthFailure.MISSING;
    // The scheme is case-insensitive (RFC 7235 §2.1): Bearer, bearer and BEARER all name it.
    if (header.length < 7 || header.slice(0, 7).toLowerCase() !== 'bearer ') return ClearingAuthFailure.MALFORMED;
    const value = header.slice(7).trim();
    const colon = value.indexOf(':');
    if (colon <= 0 || colon === value.length - 1) return ClearingAuthFailure.MALFORMED;
    const credential = this.#byAdmin.get(value.slice(0, colon));
    if (credential === undefined) return ClearingAuthFailure.UNKNOWN;
    const given = Buffer.from(value.slice(colon + 1));
    const expected = Buffer.from(credential.accessToken);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return ClearingAuthFailure.UNKNOWN;
    return credential;
  }
}
