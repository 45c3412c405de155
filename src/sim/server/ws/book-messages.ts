/**
 * The hot WebSocket payloads, orderbook_delta and orderbook_snapshot (websocket.md §6.1), built
 * with template strings instead of object + JSON.stringify: one `msg` text per engine delta and
 * variant, shared by every subscriber of that variant. Variants: plain or own-order annotated
 * (client_order_id, subaccount, last_update_reason: only for the key that owns the order), and
 * NO levels in NO price (default) or in YES price (`use_yes_price`). The envelope (type, sid,
 * seq) is added per subscriber by the hub. Level order is ascending by the price sent for YES,
 * and best-last for NO (README: the docs only say the REST book is ascending).
 */

import { formatCount, formatPrice, PRICE_ONE, type Count, type Price } from '../../../core/index.ts';
import type { Market, Order, OrderbookView, UpdateReason } from '../../engine/index.ts';

/** JSON-escaped ticker per market, computed once (only engine markets: their tickers come from the catalog). */
const quotedTickers = new Map<string, string>();

export function quotedTicker(ticker: string): string {
  let quoted = quotedTickers.get(ticker);
  if (quoted === undefined) {
    quoted = JSON.stringify(ticker);
    quotedTickers.set(ticker, quoted);
  }
  return quoted;
}

let isoCacheMs = -1;
let isoCacheText = '';

/** RFC 3339 text of a ms timestamp; consecutive deltas share a millisecond, so one is cached. */
export function isoOf(tsMs: number): string {
  if (tsMs !== isoCacheMs) {
    isoCacheMs = tsMs;
    isoCacheText = new Date(tsMs).toISOString();
  }
  return isoCacheText;
}

/** Variant index: bit 0 = YES-priced NO side, bit 1 = own-order annotated. */
export const VARIANT_YES_PRICE = 1;
export const VARIANT_OWN = 2;

/**
 * Lazily built delta texts of one engine delta. `reset` reuses the record for the next delta so
 * the fan-out allocates only the texts it actually needs.
 */
export class DeltaTexts {
  market: Market | null = null;
  side: 'yes' | 'no' = 'yes';
  price: Price = 0 as Price;
  delta: Count = 0 as Count;
  order: Order | null = null;
  reason: UpdateReason = '';
  tsMs = 0;
  readonly #texts: Array<string | null> = [null, null, null, null];

  reset(market: Market, side: 'yes' | 'no', price: Price, delta: Count, order: Order | null, reason: UpdateReason, tsMs: number): void {
    this.market = market;
    this.side = side;
    this.price = price;
    this.delta = delta;
    this.order = order;
    this.reason = reason;
    this.tsMs = tsMs;
    const texts = this.#texts;
    texts[0] = null;
    texts[1] = null;
    texts[2] = null;
    texts[3] = null;
  }

  text(variant: number, subaccountShown: boolean): string {
    // subaccountShown only matters for own variants; cache key folds it into the own variant.
    const cached = this.#texts[variant];
    if (cached !== null && (variant & VARIANT_OWN) === 0) return cached;
    const built = this.#build(variant, subaccountShown);
    if ((variant & VARIANT_OWN) === 0) this.#texts[variant] = built;
    return built;
  }

  #build(variant: number, subaccountShown: boolean): string {
    const market = this.market!;
    const noInYes = this.side === 'no' && (variant & VARIANT_YES_PRICE) !== 0;
    const price = noInYes ? ((PRICE_ONE - this.price) as Price) : this.price;
    let text = `{"market_ticker":${quotedTicker(market.ticker)},"market_id":"${market.spec.marketId}","price_dollars":"${formatPrice(price)}","delta_fp":"${formatCount(this.delta)}","side":"${this.side}"`;
    const order = this.order;
    if ((variant & VARIANT_OWN) !== 0 && order !== null) {
      text += `,"client_order_id":${JSON.stringify(order.clientOrderId)}`;
      if (subaccountShown) text += `,"subaccount":${order.subaccount}`;
      if (this.reason !== '') text += `,"last_update_reason":"${this.reason}"`;
    }
    return `${text},"ts":"${isoOf(this.tsMs)}","ts_ms":${this.tsMs}}`;
  }
}

function levels(pairs: ReadonlyArray<readonly [Price, Count]>, complement: boolean): string {
  let text = '[';
  for (let i = 0; i < pairs.length; i++) {
    const price = complement ? ((PRICE_ONE - pairs[i][0]) as Price) : pairs[i][0];
    if (i > 0) text += ',';
    text += `["${formatPrice(price)}","${formatCount(pairs[i][1])}"]`;
  }
  return `${text}]`;
}

/** orderbook_snapshot msg: empty sides are omitted (schema: absent when no levels). */
export function snapshotText(market: Market, view: OrderbookView, useYesPrice: boolean): string {
  let text = `{"market_ticker":${quotedTicker(market.ticker)},"market_id":"${market.spec.marketId}"`;
  if (view.yes.length > 0) text += `,"yes_dollars_fp":${levels(view.yes, false)}`;
  if (view.no.length > 0) text += `,"no_dollars_fp":${levels(view.no, useYesPrice)}`;
  return `${text}}`;
}

/**
 * Snapshot of a market the engine does not know: both sides absent. The ticker came from a client,
 * so it is quoted here and never cached (a cache of made-up tickers would grow without bound, and
 * its rehashes stalled the loop for tens of ms).
 */
export function emptySnapshotText(ticker: string): string {
  return `{"market_ticker":${JSON.stringify(ticker)},"market_id":"00000000-0000-0000-0000-000000000000"}`;
}
