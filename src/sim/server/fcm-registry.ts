/**
 * FCM members and their subtraders (GET /fcm/orders): an FCM user sees the orders of the users it
 * clears for, each known to it by a subtrader id. The exchange gives no way to create the
 * relation over REST that the seed names, so tests and the embedder call `addSubtrader`. This file
 * owns the relation only; orders come from the engine.
 */

/** Subtraders per FCM: an input bound (each is searched on every client_order_ids lookup). */
export const SUBTRADERS_PER_FCM_MAX = 1000;

export class FcmRegistry {
  /** fcm user id -> subtrader id -> the subtrader's user id */
  readonly #byFcm = new Map<string, Map<string, string>>();

  addSubtrader(fcmUserId: string, subtraderId: string, userId: string): void {
    let subtraders = this.#byFcm.get(fcmUserId);
    if (subtraders === undefined) this.#byFcm.set(fcmUserId, (subtraders = new Map()));
    if (!subtraders.has(subtraderId) && subtraders.size >= SUBTRADERS_PER_FCM_MAX) throw new Error(`at most ${SUBTRADERS_PER_FCM_MAX} subtraders per FCM`);
    subtraders.set(subtraderId, userId);
  }

  isFcm(userId: string): boolean {
    return this.#byFcm.has(userId);
  }

  /** The subtrader's user id, or undefined when it is not this FCM's. */
  subtraderUser(fcmUserId: string, subtraderId: string): string | undefined {
    return this.#byFcm.get(fcmUserId)?.get(subtraderId);
  }

  subtraders(fcmUserId: string): ReadonlyMap<string, string> {
    return this.#byFcm.get(fcmUserId) ?? new Map();
  }
}
