/**
 * The capture: records the exchange's public market data for many markets at once, without
 * trading, in the existing recording format (so `npm run replay` and the catalog read it). It is
 * the live path with nothing after it: one Feed (books, sequence checks, resync through the
 * feed's own get_snapshot path, reconnects and resubscribes) whose frame tap copies every frame
 * into the current file's Recorder, then counts it in the file's quality (the decoder's record of
 * the frame just handled names its market and the exchange's ts_ms: nothing is parsed twice).
 *
 * Channels: orderbook_delta (snapshots and deltas), trade, ticker for the selected markets (all
 * markets with --all-open), and market_lifecycle_v2 (with event_lifecycle). A market the
 * lifecycle channel announces (created / activated) that the selection takes is looked up through
 * the budgeted client, written as a MARKET record and subscribed.
 *
 * Files rotate on multiples of `rotateMs` (UTC): the new file opens with a SESSION record, a
 * MARKET record per market and the channels' latest `subscribed` replies (copied, so replay maps
 * the sids), and every book is asked for a fresh snapshot through the feed's resync, so each file
 * stands alone. The old file is closed and its quality report written beside it. A lost
 * connection keeps the file open; the feed reconnects, resubscribes and rebuilds the books.
 */

import { Channel, Feed, MessageKind, NoopFeedListener, type FeedAuth, type FeedLogger, type LifecycleRecord, type FeedOptions } from '../feed/index.ts';
import type { OrderBook } from '../book/index.ts';
import { RecordKind } from '../record/format.ts';
import { Recorder } from '../record/recorder.ts';
import { marketRecordText } from '../record/market-record.ts';
import { fetchMarkets, type ColdReads, type MarketFacts } from '../runtime/market-directory.ts';
import { CaptureQuality, type QualityReport } from './capture-quality.ts';
import { captureFileName, nextRotationMs, writeQualityReport } from './capture-files.ts';
import { listSelectedMarkets, selects, type MarketSelection } from './capture-markets.ts';

export interface CaptureOptions {
  wsUrl: string;
  auth: FeedAuth | null;
  /** Budgeted reads (BudgetedRestClient) and the API prefix their paths start with. */
  reads: ColdReads;
  apiPrefix: string;
  selection: MarketSelection;
  dir: string;
  /** File length, ms (default 3,600,000: hourly, on the hour). */
  rotateMs?: number;
  /** Called with each closed file's report (after it is written beside the file). */
  onFileClosed?: (report: QualityReport, recordingPath: string, reportPath: string) => void;
  logger?: FeedLogger;
  /** Feed options for tests (reconnect timing); the capture sets url, auth, listener and frameTap. */
  feed?: Partial<Omit<FeedOptions, 'url' | 'auth' | 'listener' | 'frameTap'>>;
}

/** New markets are looked up in batches this often, ms: one budgeted read for a burst of creations. */
const FOLLOW_INTERVAL_MS = 250;

export class Capture {
  readonly feed: Feed;
  readonly #options: CaptureOptions;
  readonly #rotateMs: number;
  readonly #markets = new Map<string, MarketFacts>();
  readonly #pending = new Set<string>();
  /** Latest `subscribed` reply per channel, copied: the head of every rotated file. */
  readonly #subscribedFrames = new Map<string, Buffer>();
  #recorder: Recorder | null = null;
  #quality: CaptureQuality | null = null;
  /** The book store's seq-break count already put in a quality report. */
  #sequenceBreaksSeen = 0;
  #disconnectsAtOpen = 0;
  #rotateTimer: ReturnType<typeof setTimeout> | null = null;
  #followTimer: ReturnType<typeof setInterval> | null = null;
  #following = false;
  #rotation = 0;
  #stopped = false;
  readonly closedFiles: string[] = [];

  constructor(options: CaptureOptions) {
    this.#options = options;
    this.#rotateMs = options.rotateMs ?? 3_600_000;
    this.feed = new Feed({
      ...options.feed,
      url: options.wsUrl,
      auth: options.auth,
      logger: options.logger,
      listener: new CaptureListener(this),
      frameTap: (bytes, start, end, receivedNs) => this.#onFrame(bytes, start, end, receivedNs),
    });
  }

  get recordingPath(): string | null {
    return this.#recorder?.path ?? null;
  }

  get quality(): CaptureQuality | null {
    return this.#quality;
  }

  get marketCount(): number {
    return this.#markets.size;
  }

  /** Lists the selection, opens the first file, connects and subscribes. */
  async start(): Promise<void> {
    const markets = await listSelectedMarkets(this.#options.reads, this.#options.apiPrefix, this.#options.selection);
    this.#openFile(Date.now());
    this.#addMarkets([...markets.values()], false);
    const feed = this.feed;
    feed.subscribe(Channel.MARKET_LIFECYCLE);
    if (this.#options.selection.kind === 'all-open') {
      feed.subscribe(Channel.TRADE);
      feed.subscribe(Channel.TICKER);
    }
    feed.start();
    this.#followTimer = setInterval(() => void this.#follow(), FOLLOW_INTERVAL_MS);
    this.#scheduleRotation();
  }

  /** Stops the feed and closes the current file (its report written). Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#rotateTimer !== null) clearTimeout(this.#rotateTimer);
    if (this.#followTimer !== null) clearInterval(this.#followTimer);
    // Counted before the feed closes its own socket: that close is not a lost connection.
    if (this.#quality !== null) this.#quality.disconnects = this.feed.counters.disconnects - this.#disconnectsAtOpen;
    this.feed.stop();
    await this.#closeFile(this.#recorder, this.#quality);
    this.#recorder = null;
  }

  /** Closes the current file and opens the next (public for tests; normally the rotation timer's). */
  async rotate(): Promise<void> {
    if (this.#stopped) return;
    const previous = this.#recorder;
    const previousQuality = this.#quality;
    if (previousQuality !== null) previousQuality.disconnects = this.feed.counters.disconnects - this.#disconnectsAtOpen;
    this.#openFile(Date.now());
    for (const facts of this.#markets.values()) this.#writeMarket(facts);
    for (const bytes of this.#subscribedFrames.values()) this.#recorder!.frame(bytes, 0, bytes.length);
    // Each file must hold its books' snapshots: ask for them through the live resync path.
    for (const ticker of this.#markets.keys()) this.feed.resyncBook(ticker);
    await this.#closeFile(previous, previousQuality);
  }

  #scheduleRotation(): void {
    const now = Date.now();
    this.#rotateTimer = setTimeout(() => {
      void this.rotate().then(() => {
        if (!this.#stopped) this.#scheduleRotation();
      });
    }, nextRotationMs(now, this.#rotateMs) - now);
  }

  #openFile(startMs: number): void {
    const dir = this.#options.dir;
    const fileName = captureFileName(dir, startMs, this.#rotateMs % 60_000 !== 0);
    this.#recorder = new Recorder({ dir, startMs, fileName });
    this.#quality = new CaptureQuality(startMs);
    this.#disconnectsAtOpen = this.feed.counters.disconnects;
    this.#recorder.text(RecordKind.SESSION, JSON.stringify({ event: 'start', source: 'capture', rotation: this.#rotation++, selection: this.#options.selection }));
  }

  async #closeFile(recorder: Recorder | null, quality: CaptureQuality | null): Promise<void> {
    if (recorder === null || quality === null) return;
    await recorder.close();
    const report = quality.report(recorder.path, Date.now(), this.#markets.size, recorder.stats.droppedRecords);
    const reportPath = writeQualityReport(recorder.path, report);
    this.closedFiles.push(recorder.path);
    this.#options.onFileClosed?.(report, recorder.path, reportPath);
  }

  #writeMarket(facts: MarketFacts): void {
    this.#recorder?.text(RecordKind.MARKET, marketRecordText(facts.ticker, facts.grid, facts.open, facts.closeMs, facts.eventTicker));
  }

  #addMarkets(list: readonly MarketFacts[], followed: boolean): void {
    const added: string[] = [];
    for (const facts of list) {
      if (this.#markets.has(facts.ticker)) continue;
      this.#markets.set(facts.ticker, facts);
      this.feed.addMarket(facts.ticker, facts.grid);
      this.feed.setMarketOpen(facts.ticker, facts.open);
      this.#writeMarket(facts);
      added.push(facts.ticker);
    }
    if (added.length === 0) return;
    if (followed && this.#quality !== null) this.#quality.marketsAdded += added.length;
    this.feed.subscribeOrderbooks(added);
    if (this.#options.selection.kind !== 'all-open') {
      this.feed.subscribe(Channel.TRADE, added);
      this.feed.subscribe(Channel.TICKER, added);
    }
  }

  /** A market the lifecycle channel announced: looked up in the next batch when the selection takes it. */
  onAnnounced(ticker: string): void {
    if (this.#markets.has(ticker) || !selects(this.#options.selection, ticker)) return;
    this.#pending.add(ticker);
  }

  async #follow(): Promise<void> {
    if (this.#following || this.#pending.size === 0 || this.#stopped) return;
    this.#following = true;
    const wanted = [...this.#pending];
    this.#pending.clear();
    try {
      const found = await fetchMarkets(this.#options.reads, this.#options.apiPrefix, wanted);
      if (!this.#stopped) this.#addMarkets([...found.values()], true);
    } catch (error) {
      // Looked up again at the next announcement; the capture goes on with what it has.
      this.#options.logger?.warn({ err: error, markets: wanted.length }, 'capture: new market lookup failed');
    } finally {
      this.#following = false;
    }
  }

  onResynced(): void {
    if (this.#quality !== null) this.#quality.resyncs++;
  }

  /** The feed's frame tap: the frame was handled; its decoded record is still in feed.decoder. */
  #onFrame(bytes: Buffer, start: number, end: number, receivedNs: number): void {
    const recorder = this.#recorder;
    const quality = this.#quality;
    if (recorder === null || quality === null) return;
    // Gaps are counted where the seq is checked, not from books reported out of sync: after a
    // rotation every book waits for its snapshot, and a gap then breaks no book that could report it.
    const breaks = this.feed.books.sequenceBreaks;
    if (breaks !== this.#sequenceBreaksSeen) {
      quality.sequenceGaps += breaks - this.#sequenceBreaksSeen;
      this.#sequenceBreaksSeen = breaks;
    }
    recorder.frame(bytes, start, end, receivedNs);
    const nowMs = Date.now();
    quality.onFrame(end - start, nowMs);
    const decoder = this.feed.decoder;
    switch (this.feed.hop.kind) {
      case MessageKind.ORDERBOOK_DELTA:
        quality.onMarket(decoder.delta.marketTicker);
        if (decoder.delta.tsMs > 0) quality.onLag(nowMs, decoder.delta.tsMs);
        break;
      case MessageKind.ORDERBOOK_SNAPSHOT:
        quality.onMarket(decoder.snapshot.marketTicker);
        break;
      case MessageKind.TRADE:
        quality.onMarket(decoder.trade.marketTicker);
        if (decoder.trade.tsMs > 0) quality.onLag(nowMs, decoder.trade.tsMs);
        break;
      case MessageKind.MARKET_LIFECYCLE:
        quality.onMarket(decoder.marketLifecycle.marketTicker);
        break;
      case MessageKind.SUBSCRIBED:
        this.#subscribedFrames.set(decoder.subscribed.channel, Buffer.from(bytes.subarray(start, end)));
        break;
    }
  }
}

/** The feed's listener: resyncs and announcements go to the capture; nothing else is needed. */
class CaptureListener extends NoopFeedListener {
  readonly #capture: Capture;
  constructor(capture: Capture) {
    super();
    this.#capture = capture;
  }
  override onBookResynced(_book: OrderBook): void {
    this.#capture.onResynced();
  }
  override onLifecycle(record: LifecycleRecord): void {
    if (record.type === 'market_lifecycle_v2' && (record.eventType === 'created' || record.eventType === 'activated')) this.#capture.onAnnounced(record.marketTicker);
  }
}
