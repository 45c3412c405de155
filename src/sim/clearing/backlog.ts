/**
 * Obligations of earlier settlement cycles still outstanding, per clearing member: the simulator's
 * margin engine keeps only the current cycle, so a backlog (the demo member's, demo-obligations.ts)
 * is held here and served beside the current cycle's. Empty unless filled at start.
 */

import type { Obligation } from './obligations.ts';

export class ObligationBacklog {
  readonly #byMember = new Map<string, readonly Obligation[]>();

  /** Replaces `memberUserId`'s backlog. */
  set(memberUserId: string, obligations: readonly Obligation[]): void {
    this.#byMember.set(memberUserId, obligations);
  }

  of(memberUserId: string): readonly Obligation[] {
    return this.#byMember.get(memberUserId) ?? [];
  }
}
