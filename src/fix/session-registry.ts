/**
 * The acceptor's registry of live sessions, one per API key (fix.md §1: "one FIX connection per API
 * key"; a second logon with the same key gets Logout "already exists"). A session claims its key
 * during logon and releases it when it closes. The simulator shares one registry across all its
 * listeners; a custom implementation may also enforce per-key limits elsewhere.
 */

export interface FixSessionRegistry {
  /** True when `keyId` had no live session and now belongs to `owner`. */
  claim(keyId: string, owner: object): boolean;
  /** Frees `keyId` if `owner` holds it (a stale release by an older session is ignored). */
  release(keyId: string, owner: object): void;
}

export class ActiveSessionRegistry implements FixSessionRegistry {
  readonly #owners = new Map<string, object>();

  claim(keyId: string, owner: object): boolean {
    if (this.#owners.has(keyId)) return false;
    this.#owners.set(keyId, owner);
    return true;
  }

  release(keyId: string, owner: object): void {
    if (this.#owners.get(keyId) === owner) this.#owners.delete(keyId);
  }

  has(keyId: string): boolean {
    return this.#owners.has(keyId);
  }

  get size(): number {
    return this.#owners.size;
  }
}
