/**
 * The OMS's index of orders by this session's client order id (src/oms/client-id-index.ts: a ring
 * by counter, no entry allocated per order) against the Map it replaced (issue 29), and the table
 * the OMS keeps by venue order id beside a Map. One operation is an order's life as the OMS sees
 * it with 30,000 orders tracked: index the new order, find it twice, forget the oldest. Own
 * orders: indexed by their counter (their id string never made), found once by the handle (the
 * route's create answer) and once by a parsed copy of the id's text (a user_order frame), forgotten
 * by the record; the Map baseline indexes the id string (made before the timing, so its making is
 * not counted against the Map) and finds it by the same string and by the parsed copy. Venue ids
 * are flat 36-character UUID strings, as a parsed answer's are. Throughput interleaved (median of
 * rounds) and per-operation latency; the bytes left per order are the hot-path suite's allocation
 * rows. Every loop is bounded in count and time.
 *
 * The venue ids: the OMS's VenueIdIndex (src/oms/venue-order-ids.ts: open addressing, keyed by
 * the ids' bytes in the pool's flat store, no key string kept, the id's last 8 characters hashed,
 * each cell's slot and hash kept) beside the Map it replaced. A first version that hashed every
 * character on every call and again on each delete's shift was far below the Map and was not kept
 * (session 14). The finds use a copy of the key made apart from the indexed one, as a WebSocket
 * frame's parsed id is, with its hash not yet cached by V8.
 */

import { randomUUID } from 'node:crypto';
import { ClientOrderIds, OrderPool } from '../../src/oms/index.ts';
import type { Order } from '../../src/oms/index.ts';
import { ClientIdIndex } from '../../src/oms/client-id-index.ts';
import { VenueIdIndex } from '../../src/oms/index.ts';
import { consume, latencyRow, measureLatency, measureThroughputInterleaved, throughputRow } from '../harness.ts';
import type { BenchRow, BenchSuite } from '../harness.ts';
import type { Price } from '../../src/core/index.ts';

const SUITE = 'oms-index';
const TRACKED = 30_000;
const KEYS = 262_144; // keys cycle; one is reused long after it was forgotten

interface Index {
  get(id: string): Order | undefined;
  set(id: string, order: Order): void;
  /** Forgets `id`, the id of `order` (a Map needs only the id, the OMS's index only the record). */
  delete(id: string, order: Order): boolean;
}

/** The OMS's VenueIdIndex as an Index: the record holds its id (set once per order before the runs). */
class VenueIds implements Index {
  readonly #index: VenueIdIndex<Order>;
  constructor(pool: OrderPool) {
    this.#index = new VenueIdIndex<Order>(pool.venueIds);
  }
  get(id: string): Order | undefined {
    return this.#index.get(id);
  }
  set(_id: string, order: Order): void {
    this.#index.add(order);
  }
  delete(_id: string, order: Order): boolean {
    return this.#index.remove(order);
  }
}

/** One order's life against `index` over the key ring: index, find twice, forget the oldest. */
class Lifecycle {
  readonly #index: Index;
  readonly #keys: readonly string[];
  readonly #orders: readonly Order[];
  #next = 0;

  readonly #finds: readonly string[];

  /** Whether the first find is by the indexed string itself (an answer carrying it), the second by `finds`. */
  readonly #firstBySame: boolean;

  /** `orders[i]` is the order whose id is `keys[i]`; `finds[i]` the key it is found by (the same string, or an equal one made apart). */
  constructor(index: Index, keys: readonly string[], orders: readonly Order[], finds: readonly string[] = keys, firstBySame = false) {
    this.#index = index;
    this.#keys = keys;
    this.#finds = finds;
    this.#firstBySame = firstBySame;
    this.#orders = orders;
    for (; this.#next < TRACKED; this.#next++) index.set(keys[this.#next]!, orders[this.#next]!);
  }

  step(): void {
    const keys = this.#keys;
    const at = this.#next & (KEYS - 1);
    const key = keys[at]!;
    // The OMS indexes an order while handling its answer and forgets it while pruning it: the
    // record is in hand both times (read here for every index alike).
    const order = this.#orders[at]!;
    consume(order.state);
    this.#index.set(key, order);
    const find = this.#finds[at]!;
    consume(this.#index.get(this.#firstBySame ? key : find)?.state); // the OMS reads the order it finds: its cache miss is paid either way
    consume(this.#index.get(find)?.state);
    const gone = (this.#next - TRACKED) & (KEYS - 1);
    const goneOrder = this.#orders[gone]!;
    consume(goneOrder.generation);
    this.#index.delete(keys[gone]!, goneOrder);
    this.#next++;
  }
}

/** This session's orders as the OMS tracks them: by counter (ClientIdIndex.add, own, remove) and by a frame's text (get). */
class OwnLifecycle {
  readonly #index: ClientIdIndex;
  readonly #orders: readonly Order[];
  readonly #texts: readonly string[];
  #next = 0;

  /** `orders[i]` has counter i + 1; `texts[i]` is a parsed copy of its id. */
  constructor(index: ClientIdIndex, orders: readonly Order[], texts: readonly string[]) {
    this.#index = index;
    this.#orders = orders;
    this.#texts = texts;
    for (; this.#next < TRACKED; this.#next++) index.add(orders[this.#next]!);
  }

  step(): void {
    const at = this.#next & (KEYS - 1);
    const order = this.#orders[at]!;
    this.#index.add(order);
    consume(this.#index.own(order.counter)?.state); // the create's answer, by handle
    consume(this.#index.get(this.#texts[at]!)?.state); // a user_order frame, by the id's text
    this.#index.remove(this.#orders[(this.#next - TRACKED) & (KEYS - 1)]!);
    this.#next++;
  }
}

function flat(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}

export default {
  name: SUITE,
  async run({ quick }): Promise<BenchRow[]> {
    const settings = quick ? { roundMs: 100, rounds: 3, warmupMs: 100, samples: 50_000, budgetMs: 300 } : { roundMs: 1000, rounds: 5, warmupMs: 500, samples: 1_000_000, budgetMs: 2000 };
    const venueKeys = Array.from({ length: KEYS }, () => flat(randomUUID()));
    const venueFinds = venueKeys.map(flat);
    const ids = new ClientOrderIds('mm1', 1_798_761_600_000, 0);
    const pool = new OrderPool();
    // Counters 1..KEYS, their ids left unmade as the OMS's accept leaves them; the text made apart for the Map and the frames.
    const orders = Array.from({ length: KEYS }, () => pool.take().reinit('', ids.take(), 'KX-BENCH', 0, 'bid', 4000 as Price, 100, 'good_till_canceled', false, false, 'taker_at_cross', 0, null, -1, 0, 0, ids));
    const ownKeys = orders.map((order) => ids.format(order.counter));
    const ownFinds = ownKeys.map(flat);
    orders.forEach((order, i) => order.setOrderIdText(venueKeys[i]!)); // as an answer's id is kept: bytes in the record
    const cases = [
      { name: 'own client order id: ClientIdIndex (index by counter, find by handle and by a parsed id, forget)', baseline: false, life: new OwnLifecycle(new ClientIdIndex(ids.head), orders, ownFinds) },
      { name: 'baseline: own client order id: Map (index the id string, find by it and by a parsed id, forget)', baseline: true, life: new Lifecycle(new Map<string, Order>(), ownKeys, orders, ownFinds, true) },
      { name: 'venue order id: VenueIdIndex, as the OMS keeps it (index, find twice by a parsed copy, forget)', baseline: false, life: new Lifecycle(new VenueIds(pool), venueKeys, orders, venueFinds) },
      { name: 'baseline: venue order id: Map (index, find twice by a parsed copy, forget)', baseline: true, life: new Lifecycle(new Map<string, Order>(), venueKeys, orders, venueFinds) },
    ];
    const results = measureThroughputInterleaved(
      cases.map((c) => ({ run: () => c.life.step(), opsPerCall: 1 })),
      { roundMs: settings.roundMs, rounds: settings.rounds, warmupMs: settings.warmupMs },
    );
    const rows: BenchRow[] = [];
    const note = `${TRACKED} orders tracked; keys cycle over ${KEYS}`;
    cases.forEach((c, k) => {
      const compareTo = k === 0 || k === 2 ? cases[k + 1]!.name : undefined;
      rows.push(throughputRow(SUITE, c.name, c.baseline, results[k]!, { note, ...(compareTo === undefined ? {} : { compareTo }) }));
    });
    for (const [k, c] of cases.entries()) {
      const histogram = measureLatency(() => c.life.step(), { samples: settings.samples, timeBudgetMs: settings.budgetMs });
      const compareTo = k === 0 || k === 2 ? `latency: ${cases[k + 1]!.name}` : undefined;
      rows.push(latencyRow(SUITE, `latency: ${c.name}`, c.baseline, histogram, { note, ...(compareTo === undefined ? {} : { compareTo }) }));
    }
    return rows;
  },
} satisfies BenchSuite;
