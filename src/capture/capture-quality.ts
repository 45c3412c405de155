/**
 * One capture file's quality: frames, the markets they named, sequence gaps, resyncs, disconnects,
 * minutes in which nothing arrived, and the receive lag against the exchange's own timestamps
 * (deltas' and trades' `ts_ms`). Counted while the file is open, reported as JSON beside the file
 * when it closes (capture-YYYYMMDDTHHMMZ.quality.json). Owns the counting only; it never reads the
 * frames itself (the capture hands it what the feed's decoder already found).
 */

/** Lag histogram resolution: 1 ms buckets up to 60 s; a larger lag lands in the last bucket. */
const LAG_BUCKETS = 60_001;

export interface QualityReport {
  file: string;
  startedAt: string;
  closedAt: string;
  durationMs: number;
  frames: number;
  bytes: number;
  /** Distinct markets named by book, trade or lifecycle frames. */
  markets: number;
  /** Markets subscribed when the file closed. */
  marketsSubscribed: number;
  /** Markets added while this file was open (lifecycle created / activated). */
  marketsAdded: number;
  sequenceGaps: number;
  /** Books made whole again by a fresh snapshot after a break (gap, disconnect, rotation). */
  resyncs: number;
  disconnects: number;
  /** Whole minutes of the file (UTC, clipped to its span) with no frame at all. */
  minutesWithoutData: number;
  /** Receive time minus the exchange's ts_ms, ms, over the frames that carry one; null when none did. */
  receiveLagMsP50: number | null;
  receiveLagMsP99: number | null;
  lagSamples: number;
  droppedRecords: number;
}

export class CaptureQuality {
  readonly startMs: number;
  frames = 0;
  bytes = 0;
  sequenceGaps = 0;
  resyncs = 0;
  disconnects = 0;
  marketsAdded = 0;
  readonly #markets = new Set<string>();
  readonly #lag = new Uint32Array(LAG_BUCKETS);
  #lagSamples = 0;
  /** Minute index (since startMs's minute) -> frames seen; bounded by the file's length in minutes. */
  readonly #minutesWithData = new Set<number>();

  constructor(startMs: number) {
    this.startMs = startMs;
  }

  onFrame(bytes: number, nowMs: number): void {
    this.frames++;
    this.bytes += bytes;
    this.#minutesWithData.add(Math.floor(nowMs / 60_000));
  }

  onMarket(ticker: string): void {
    if (ticker !== '') this.#markets.add(ticker);
  }

  /** Receive wall time and the exchange's ts_ms of the same frame. */
  onLag(nowMs: number, exchangeMs: number): void {
    const lag = Math.round(nowMs - exchangeMs);
    // A negative lag is clock skew between the hosts: counted as 0 rather than dropped.
    this.#lag[lag < 0 ? 0 : lag >= LAG_BUCKETS ? LAG_BUCKETS - 1 : lag]++;
    this.#lagSamples++;
  }

  report(file: string, closeMs: number, marketsSubscribed: number, droppedRecords: number): QualityReport {
    return {
      file,
      startedAt: new Date(this.startMs).toISOString(),
      closedAt: new Date(closeMs).toISOString(),
      durationMs: closeMs - this.startMs,
      frames: this.frames,
      bytes: this.bytes,
      markets: this.#markets.size,
      marketsSubscribed,
      marketsAdded: this.marketsAdded,
      sequenceGaps: this.sequenceGaps,
      resyncs: this.resyncs,
      disconnects: this.disconnects,
      minutesWithoutData: this.#minutesWithoutData(closeMs),
      receiveLagMsP50: this.#lagQuantile(0.5),
      receiveLagMsP99: this.#lagQuantile(0.99),
      lagSamples: this.#lagSamples,
      droppedRecords,
    };
  }

  /** Minutes [start's minute, close's minute] with no frame; a file shorter than a minute has one minute. */
  #minutesWithoutData(closeMs: number): number {
    const first = Math.floor(this.startMs / 60_000);
    const last = Math.floor(Math.max(this.startMs, closeMs - 1) / 60_000);
    let empty = 0;
    for (let minute = first; minute <= last; minute++) if (!this.#minutesWithData.has(minute)) empty++;
    return empty;
  }

  #lagQuantile(q: number): number | null {
    if (this.#lagSamples === 0) return null;
    const rank = Math.ceil(q * this.#lagSamples);
    let seen = 0;
    for (let ms = 0; ms < LAG_BUCKETS; ms++) {
      seen += this.#lag[ms];
      if (seen >= rank) return ms;
    }
    return LAG_BUCKETS - 1;
  }
}

/** One line for the terminal: the report's headline numbers. */
export function qualityLine(report: QualityReport): string {
  const lag = report.receiveLagMsP50 === null ? 'lag n/a' : `lag p50 ${report.receiveLagMsP50} ms p99 ${report.receiveLagMsP99} ms`;
  return `${report.file}: ${report.frames} frames, ${report.markets} markets (+${report.marketsAdded}), ${report.sequenceGaps} gaps, `
    + `${report.resyncs} resyncs, ${report.disconnects} disconnects, ${report.minutesWithoutData} empty minutes, ${lag}`;
}
