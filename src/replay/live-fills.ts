/**
 * How much of each public trade filled the live run's own resting orders, from the recording's
 * `fill` frames (a fill's trade_id is the public trade's). Where the live run rested at a trade's
 * level, this is its queue place made visible: the trade reached it, by so much, or did not. The
 * replay venue can then fill its own order at that level as the live one was filled
 * (replay-venue.ts, `queueFromLiveFills`) instead of guessing the queue ahead. Read once before
 * a replay; owns this map only.
 */

import { RecordKind } from '../record/index.ts';
import type { Recording } from '../record/index.ts';
import { parseCount } from '../core/index.ts';

const FILL_TYPE = Buffer.from('"type":"fill"');

interface FillMsg {
  trade_id?: unknown;
  is_taker?: unknown;
  count_fp?: unknown;
}

export class LiveFills {
  /** Maker count (1/100 contract) of our live orders by trade_id. */
  readonly #byTrade = new Map<string, number>();
  /** The recording carries the fill channel: a trade absent from the map filled none of ours. */
  readonly known: boolean;

  private constructor(known: boolean) {
    this.known = known;
  }

  /**
   * Scans the recording's frames for `fill` messages (a few hundred a minute: parsed as JSON).
   * `fillChannel`: the live run subscribed the fill channel (frame-class.ts, sidsByChannel), so a
   * trade with no fill of ours filled none of ours.
   */
  static fromRecording(recording: Recording, fillChannel: boolean): LiveFills {
    const { kinds, bodyStarts, bodyLengths, bytes, count } = recording;
    const fills: FillMsg[] = [];
    for (let i = 0; i < count; i++) {
      if (kinds[i] !== RecordKind.FRAME) continue;
      const at = bodyStarts[i] + 1;
      const end = bodyStarts[i] + bodyLengths[i];
      if (end - at < FILL_TYPE.length || bytes.compare(FILL_TYPE, 0, FILL_TYPE.length, at, at + FILL_TYPE.length) !== 0) continue;
      try {
        const msg = (JSON.parse(bytes.toString('utf8', bodyStarts[i], end)) as { msg?: FillMsg }).msg;
        if (msg !== undefined) fills.push(msg);
      } catch {
        // a frame the live feed could not read either
      }
    }
    const live = new LiveFills(fillChannel || fills.length > 0);
    for (const fill of fills) {
      if (fill.is_taker !== false || typeof fill.trade_id !== 'string' || typeof fill.count_fp !== 'string') continue;
      const filled = parseCount(fill.count_fp);
      if (!(filled > 0)) continue;
      live.#byTrade.set(fill.trade_id, (live.#byTrade.get(fill.trade_id) ?? 0) + filled);
    }
    return live;
  }

  /** Our live resting orders' share of the trade, 1/100 contract; -1 when the recording cannot tell (no fill channel). */
  makerCountOf(tradeId: string): number {
    if (!this.known) return -1;
    return this.#byTrade.get(tradeId) ?? 0;
  }
}
