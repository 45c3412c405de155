/**
 * Admission of FIX connections (fix-acceptor.ts): three caps on live connections, across all
 * listeners, per listener and per source address, so that idle sockets cannot lock out a real
 * Logon. A connection that would pass a cap first evicts the oldest connection in that scope that
 * has not logged on yet (it is the cheapest to lose: it has sent no Logon, so no session, order or
 * subscription goes with it); only when every connection in a full scope has logged on is the new
 * one refused. Logged-on connections are never evicted. It owns the counts, not the sockets: the
 * caller destroys what `evict` is given. Insertion order is age (a Set iterates in insertion order).
 */

export interface ConnectionLimitsOptions<T> {
  /** Live connections across all listeners. */
  totalMax: number;
  /** Live connections on one listener (one session kind of one venue). */
  perListenerMax: number;
  /** Live connections from one remote address. */
  perSourceMax: number;
  sourceOf(connection: T): string;
  listenerOf(connection: T): string;
  /** True while the connection has not logged on (it may be evicted). */
  pending(connection: T): boolean;
  /** Drops an evicted connection (its release here has already happened). */
  evict(connection: T): void;
}

export class ConnectionLimits<T> {
  readonly #options: ConnectionLimitsOptions<T>;
  readonly #live = new Set<T>();
  readonly #perSource = new Map<string, number>();
  readonly #perListener = new Map<string, number>();
  /** Connections evicted to make room (a counter for tests and logs). */
  evictedCount = 0;

  constructor(options: ConnectionLimitsOptions<T>) {
    this.#options = options;
  }

  get size(): number {
    return this.#live.size;
  }

  /** Admits `connection`, evicting at most one pending connection per full scope; false = refuse it. */
  admit(connection: T): boolean {
    const options = this.#options;
    const source = options.sourceOf(connection);
    const listener = options.listenerOf(connection);
    if (this.#live.size >= options.totalMax && !this.#evictOldest(() => true)) return false;
    if ((this.#perListener.get(listener) ?? 0) >= options.perListenerMax && !this.#evictOldest((c) => options.listenerOf(c) === listener)) return false;
    if ((this.#perSource.get(source) ?? 0) >= options.perSourceMax && !this.#evictOldest((c) => options.sourceOf(c) === source)) return false;
    this.#live.add(connection);
    this.#perSource.set(source, (this.#perSource.get(source) ?? 0) + 1);
    this.#perListener.set(listener, (this.#perListener.get(listener) ?? 0) + 1);
    return true;
  }

  /** The connection closed; a second release (after an eviction) does nothing. */
  release(connection: T): void {
    if (!this.#live.delete(connection)) return;
    decrement(this.#perSource, this.#options.sourceOf(connection));
    decrement(this.#perListener, this.#options.listenerOf(connection));
  }

  #evictOldest(inScope: (connection: T) => boolean): boolean {
    for (const connection of this.#live) {
      if (!inScope(connection) || !this.#options.pending(connection)) continue;
      this.release(connection); // now, not on the socket's later 'close': the count must drop before the new one is counted
      this.evictedCount++;
      this.#options.evict(connection);
      return true;
    }
    return false;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 0) - 1;
  if (count <= 0) counts.delete(key);
  else counts.set(key, count);
}
