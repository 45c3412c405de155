/**
 * The live run's own private frames in a recording (`fill`, `user_order`), which a replay does not
 * deliver but reads: found by their leading `{"type":"…"` and decoded by the feed's FrameDecoder,
 * the one way the replay's modules read them (live fills, live orders, the latency model, the
 * live-vs-replay comparison). Never on a timed path. Owns its decoder only.
 */

import { FrameDecoder, MessageKind } from '../feed/index.ts';
import { MarketRegistry } from '../market/index.ts';
import { RecordKind } from '../record/index.ts';
import type { Recording } from '../record/index.ts';

export type PrivateType = 'fill' | 'user_order';

const FILL_HEAD = Buffer.from('{"type":"fill"');
const USER_ORDER_HEAD = Buffer.from('{"type":"user_order"');

export class PrivateFrames {
  /** Holds the last frame read: `decoder.fill` or `decoder.userOrder`. */
  readonly decoder = new FrameDecoder(new MarketRegistry());
  readonly #recording: Recording;

  constructor(recording: Recording) {
    this.#recording = recording;
  }

  /** Decodes record `i` when it is a `type` frame the feed can read (a frame it could not read live is skipped). */
  read(i: number, type: PrivateType): boolean {
    const { kinds, bodyStarts, bodyLengths, bytes } = this.#recording;
    if (kinds[i] !== RecordKind.FRAME) return false;
    const head = type === 'fill' ? FILL_HEAD : USER_ORDER_HEAD;
    const start = bodyStarts[i];
    const end = start + bodyLengths[i];
    if (end - start < head.length || bytes.compare(head, 0, head.length, start, start + head.length) !== 0) return false;
    return this.decoder.decode(bytes, start, end) === (type === 'fill' ? MessageKind.FILL : MessageKind.USER_ORDER);
  }
}
