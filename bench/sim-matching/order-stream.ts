/**
 * The recorded order mix both matchers replay: a seeded stream of op descriptors in typed arrays
 * (no allocation while replaying). Kinds: resting add (a GTC quote a few levels behind the best,
 * never crossing), crossing taker (IOC at the best opposite price plus a level), cancel (a random
 * live order). Prices are grid levels relative to each market's moving fair value, so the stream
 * stays realistic however the books evolve. Default mix: 60% adds, 20% takers, 20% cancels.
 */

import { SeededRandom } from '../../src/sim/engine/index.ts';

export const OP_ADD = 0;
export const OP_TAKE = 1;
export const OP_CANCEL = 2;

export interface OrderStream {
  length: number;
  kind: Uint8Array;
  market: Uint16Array;
  /** 0 = bid, 1 = ask. */
  side: Uint8Array;
  /** Levels behind the best (adds) or beyond it (takers). */
  offset: Uint8Array;
  /** Count in 1/100 contract. */
  count: Uint32Array;
  /** Random number used to pick a live order (cancels) or drift the fair value. */
  pick: Uint32Array;
}

/** maxAddOffset: adds rest 0..maxAddOffset-1 levels behind the best (deeper books with larger values). */
export function makeOrderStream(length: number, markets: number, seed: number, addPercent = 60, takePercent = 20, maxAddOffset = 8): OrderStream {
  const random = new SeededRandom(seed);
  const stream: OrderStream = {
    length,
    kind: new Uint8Array(length),
    market: new Uint16Array(length),
    side: new Uint8Array(length),
    offset: new Uint8Array(length),
    count: new Uint32Array(length),
    pick: new Uint32Array(length),
  };
  for (let i = 0; i < length; i++) {
    const roll = random.nextInt(100);
    stream.kind[i] = roll < addPercent ? OP_ADD : roll < addPercent + takePercent ? OP_TAKE : OP_CANCEL;
    stream.market[i] = random.nextInt(markets);
    stream.side[i] = random.nextInt(2);
    stream.offset[i] = stream.kind[i] === OP_TAKE ? random.nextInt(2) : random.nextInt(maxAddOffset);
    stream.count[i] = (1 + random.nextInt(50)) * 100 + (random.nextInt(10) === 0 ? random.nextInt(100) : 0);
    stream.pick[i] = random.nextUint32();
  }
  return stream;
}
