/**
 * The recorded book's mid over time, per market: the recording's frames through a Feed driven as
 * the replay drives it (ReplaySession answering its commands, so a gap resyncs from the recording's
 * next snapshot as in a replay) but with no strategy and no venue, one sample each time a market's
 * mid changes.
 * It depends on the recording alone, never on a run's parameters, so a sweep builds it once and
 * shares it (a SharedArrayBuffer, like the recording) for every run's markouts and PnL curve.
 * Mids are kept doubled (best bid + best ask, in 1/10,000 $) so they stay integers; -1 while the
 * book is out of sync or one-sided. Owns the series and its lookup; never trades.
 */

import { Feed } from '../../feed/index.ts';
import { RecordKind, recordedMarkets } from '../../record/index.ts';
import type { Recording } from '../../record/index.ts';
import { FrameClass, classifyFrames } from '../frame-class.ts';
import { gridOf } from '../replay.ts';
import { ReplaySession } from '../replay-session.ts';

export interface MidSegment {
  ticker: string;
  /** First sample of this market in the shared arrays, and how many. */
  start: number;
  length: number;
}

export interface SharedMidSeries {
  buffer: SharedArrayBuffer;
  segments: MidSegment[];
}

/** A readable view: per sample its time (ns after the recording's start) and doubled mid. */
export class MidSeries {
  readonly segments: ReadonlyMap<string, MidSegment>;
  readonly timesNs: Float64Array;
  readonly mids2: Int32Array;

  constructor(shared: SharedMidSeries) {
    const total = shared.segments.reduce((sum, segment) => sum + segment.length, 0);
    this.timesNs = new Float64Array(shared.buffer, 0, total);
    this.mids2 = new Int32Array(shared.buffer, total * 8, total);
    this.segments = new Map(shared.segments.map((segment) => [segment.ticker, segment]));
  }

  /** The doubled mid in force at `timeNs` (the last sample at or before it); -1 when none. */
  mid2At(ticker: string, timeNs: number): number {
    const segment = this.segments.get(ticker);
    if (segment === undefined || segment.length === 0) return -1;
    let low = segment.start;
    let high = segment.start + segment.length - 1;
    if (this.timesNs[low] > timeNs) return -1;
    // Binary search for the last sample whose time <= timeNs.
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.timesNs[middle] <= timeNs) low = middle;
      else high = middle - 1;
    }
    return this.mids2[low];
  }
}

/** One pass over the recording's frames; the samples in shared memory. */
export async function buildMidSeries(recording: Recording): Promise<SharedMidSeries> {
  const classified = classifyFrames(recording);
  let session: ReplaySession | null = null;
  const feed = new Feed({ url: 'ws://replay.invalid/unused', auth: null, createSession: (options) => (session = new ReplaySession(options, classified.sidsByChannel)) });
  feed.hop.enabled = false;
  const deliver = (): void => {
    session?.deliverReplies((text) => feed.handleFrame(text));
  };
  feed.session.start();
  const tickers = [...recordedMarkets(recording).values()].map((market) => {
    feed.addMarket(market.ticker, gridOf(market));
    return market.ticker;
  });
  feed.subscribeOrderbooks(tickers);
  deliver();
  const times: number[][] = tickers.map(() => []);
  const mids: number[][] = tickers.map(() => []);
  const { kinds, timesNs, bodyStarts, bodyLengths, bytes, count } = recording;
  for (let i = 0; i < count; i++) {
    if (kinds[i] !== RecordKind.FRAME) continue;
    const frameClass = classified.classes[i];
    if (frameClass === FrameClass.SKIP) continue;
    if (frameClass === FrameClass.SEQ_OK) feed.handleFrame(classified.seqOks.get(i)!);
    else feed.handleBytes(bytes, bodyStarts[i], bodyStarts[i] + bodyLengths[i]);
    // As the replay: a break queues a get_snapshot in a microtask; it goes out (and is answered) before the next frame.
    if (feed.resync.queuedCount !== 0) {
      await Promise.resolve();
      deliver();
    }
    for (let m = 0; m < tickers.length; m++) {
      const book = feed.books.get(tickers[m]);
      const bid = book === undefined || !book.synced ? -1 : book.bestBid();
      const ask = book === undefined || !book.synced ? -1 : book.bestAsk();
      const mid2 = bid < 0 || ask < 0 ? -1 : bid + ask;
      const last = mids[m].length === 0 ? -2 : mids[m][mids[m].length - 1];
      if (mid2 === last) continue;
      times[m].push(timesNs[i]);
      mids[m].push(mid2);
    }
  }
  const total = mids.reduce((sum, list) => sum + list.length, 0);
  const buffer = new SharedArrayBuffer(total * 12);
  const timesOut = new Float64Array(buffer, 0, total);
  const midsOut = new Int32Array(buffer, total * 8, total);
  const segments: MidSegment[] = [];
  let at = 0;
  for (let m = 0; m < tickers.length; m++) {
    segments.push({ ticker: tickers[m], start: at, length: mids[m].length });
    timesOut.set(times[m], at);
    midsOut.set(mids[m], at);
    at += mids[m].length;
  }
  return { buffer, segments };
}
