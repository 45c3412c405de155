/**
 * A market's live state: its catalog spec, status, grid, matching book and trading statistics
 * (last price, volume, rolling 24 h volume, open interest). It owns these fields and simple
 * derived reads (best bid/ask); matching, money and events are the engine's.
 */

import type { Centicents, Count, Price, PriceLevelStructure, PriceRangeText } from '../../core/index.ts';
import { PriceGrid } from '../../core/index.ts';
import type { ExchangeIndex, Market, MarketResult, MarketSpec, MarketStatus, MveLeg } from './types.ts';
import { MatchingBook } from './matching-book.ts';
import type { EventState } from './event-state.ts';
import type { PositionRecord } from './user-state.ts';
import type { TradeRecord } from './records.ts';

const HOUR_MS = 3_600_000;
const HOURS_24 = 24;

export class MarketState implements Market {
  spec: MarketSpec;
  ticker: string;
  eventTicker: string;
  exchangeIndex: ExchangeIndex;
  status: MarketStatus;
  priceLevelStructure: PriceLevelStructure;
  priceRanges: readonly PriceRangeText[] | null;
  result: MarketResult;
  createdMs: number;
  updatedMs: number;
  lastPrice: Price;
  volume: Count;
  openInterest: Count;
  yesSubTitle: string;
  noSubTitle: string;
  title: string;
  subtitle: string;
  strikeType: string | null;
  floorStrike: number | null;
  capStrike: number | null;
  customStrike: Record<string, unknown> | null;
  settlementValue: Centicents | null;
  settledMs: number;
  determinationMs: number;
  closeTimeMs: number;
  /** Combo markets: collection and legs (null otherwise). */
  mveCollectionTicker: string | null;
  mveSelectedLegs: readonly MveLeg[] | null;
  grid: PriceGrid;
  book: MatchingBook;
  event: EventState;
  /** Position in the catalog (listing order, pagination key). */
  index: number;
  /** Every (user, subaccount) position ever opened here: settlement and open interest. */
  positions: PositionRecord[];
  /** Recent public trades, a ring of `tradeCapacity`; tradeNext is the next slot. */
  trades: TradeRecord[];
  tradeNext: number;
  // Rolling 24 h volume: one bucket per hour, keyed by hour number.
  readonly #hourVolume: Float64Array;
  readonly #hourKey: Float64Array;

  constructor(spec: MarketSpec, event: EventState, index: number, nowMs: number) {
    this.spec = spec;
    this.ticker = spec.ticker;
    this.eventTicker = spec.eventTicker;
    this.exchangeIndex = spec.exchangeIndex;
    this.status = spec.status;
    this.priceLevelStructure = spec.priceLevelStructure;
    this.priceRanges = spec.priceRanges;
    this.result = '';
    this.createdMs = nowMs;
    this.updatedMs = nowMs;
    this.lastPrice = 0 as Price;
    this.volume = 0 as Count;
    this.openInterest = 0 as Count;
    this.yesSubTitle = spec.yesSubTitle;
    this.noSubTitle = spec.noSubTitle;
    this.title = spec.title;
    this.subtitle = spec.subtitle;
    this.strikeType = spec.strikeType;
    this.floorStrike = spec.floorStrike;
    this.capStrike = spec.capStrike;
    this.customStrike = spec.customStrike;
    this.settlementValue = null;
    this.settledMs = 0;
    this.determinationMs = 0;
    this.closeTimeMs = spec.closeTimeMs;
    this.mveCollectionTicker = spec.mveCollectionTicker ?? null;
    this.mveSelectedLegs = spec.mveSelectedLegs ?? null;
    this.grid = PriceGrid.forMarket(spec.priceLevelStructure, spec.priceRanges);
    this.book = new MatchingBook(this.grid);
    this.event = event;
    this.index = index;
    this.positions = [];
    this.trades = [];
    this.tradeNext = 0;
    this.#hourVolume = new Float64Array(HOURS_24);
    this.#hourKey = new Float64Array(HOURS_24).fill(-1);
  }

  get volume24h(): Count {
    return this.volume24hAt(this.updatedMs);
  }

  /** Contracts traded in the 24 hours up to nowMs (hour granularity). */
  volume24hAt(nowMs: number): Count {
    const hourNow = Math.floor(nowMs / HOUR_MS);
    let total = 0;
    for (let i = 0; i < HOURS_24; i++) {
      const key = this.#hourKey[i];
      if (key > hourNow - HOURS_24 && key <= hourNow) total += this.#hourVolume[i];
    }
    return total as Count;
  }

  recordTrade(price: Price, count: Count, nowMs: number): void {
    this.lastPrice = price;
    this.volume = (this.volume + count) as Count;
    const hour = Math.floor(nowMs / HOUR_MS);
    const slot = hour % HOURS_24;
    if (this.#hourKey[slot] !== hour) {
      this.#hourKey[slot] = hour;
      this.#hourVolume[slot] = 0;
    }
    this.#hourVolume[slot] += count;
    this.updatedMs = nowMs;
  }

  bestBid(): Price {
    const level = this.book.bestBid;
    return (level === -1 ? 0 : this.grid.priceAt(level)) as Price;
  }

  bestAsk(): Price {
    const level = this.book.bestAsk;
    return (level === -1 ? 0 : this.grid.priceAt(level)) as Price;
  }

  bestBidSize(): Count {
    const level = this.book.bestBid;
    return (level === -1 ? 0 : this.book.bidSize[level]) as Count;
  }

  wirePriceRanges(): PriceRangeText[] {
    return this.grid.toPriceRanges();
  }

  bestAskSize(): Count {
    const level = this.book.bestAsk;
    return (level === -1 ? 0 : this.book.askSize[level]) as Count;
  }
}
