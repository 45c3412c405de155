/**
 * How much of each public trade filled the live run's own resting orders, from the recording's
 * `fill` frames (a fill's trade_id is the public trade's). Where the live run rested at a trade's
 * level, this is its queue place made visible: the trade reached it, by so much, or did not. The
 * replay venue can then fill its own order at that level as the live one was filled
 * (replay-venue.ts, `queueFromLiveFills`) instead of guessing the queue ahead. Read once before
 * a replay; owns this map only.
 */

import type { Recording } from '../record/index.ts';
import { PrivateFrames } from './private-frames.ts';

export class LiveFills {
  /** Maker count (1/100 contract) of our live orders by trade_id. */
  readonly #byTrade: Map<string, number>;
  /** The recording carries the fill channel: a trade absent from the map filled none of ours. */
  readonly known: boolean;

  private constructor(known: boolean, byTrade: Map<string, number>) {
    this.known = known;
    this.#byTrade = byTrade;
  }

  /**
   * Reads the recording's `fill` frames through the feed's decoder (as the live OMS read them).
   * `fillChannel`: the live run subscribed the fill channel (frame-class.ts, sidsByChannel), so a
   * trade with no fill of ours filled none of ours.
   */
  static fromRecording(recording: Recording, fillChannel: boolean): LiveFills {
    const frames = new PrivateFrames(recording);
    const byTrade = new Map<string, number>();
    let seen = false;
    for (let i = 0; i < recording.count; i++) {
      if (!frames.read(i, 'fill')) continue;
      seen = true;
      const fill = frames.decoder.fill;
      if (fill.isTaker || fill.tradeId === '' || !(fill.count > 0)) continue;
      byTrade.set(fill.tradeId, (byTrade.get(fill.tradeId) ?? 0) + fill.count);
    }
    return new LiveFills(fillChannel || seen, byTrade);
  }

  /** Our live resting orders' share of the trade, 1/100 contract; -1 when the recording cannot tell (no fill channel). */
  makerCountOf(tradeId: string): number {
    if (!this.known) return -1;
    return this.#byTrade.get(tradeId) ?? 0;
  }
}
