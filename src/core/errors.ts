/**
 * Broken invariants: the third kind of failure (STYLE §4). An `InvariantError` means a bug in our
 * code or a state that must never exist (a half-updated book); callers do not branch on it, they
 * crash and let the journal and reconciliation make the restart safe. Expected outcomes are values
 * with codes and I/O failures are coded error classes elsewhere; this file never handles either.
 */

export class InvariantError extends Error {
  readonly code: 'INVARIANT_BROKEN' = 'INVARIANT_BROKEN';
  constructor(message: string) {
    super(message);
    this.name = 'InvariantError';
  }
}

/** Throws InvariantError when `ok` is false. Pass constant strings on hot paths (no template literal). */
export function assert(ok: boolean, message: string): asserts ok {
  if (!ok) throw new InvariantError(message);
}

/** Ends a switch over a union so the compiler proves every member is handled. */
export function unreachable(value: never): never {
  throw new InvariantError(`unreachable: ${String(value)}`);
}
