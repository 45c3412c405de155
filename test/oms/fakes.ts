// Test doubles for the OMS tests: an OrderEntry that records what the OMS sends and answers reads
// from arrays the test fills (the exec contract, src/exec/order-entry.ts), a book (the gate's
// BookView), a logger that keeps warnings, and a world builder wiring gate + OMS over a ManualClock.

import { CENTICENTS_INVALID, COUNT_INVALID, createIntent, IntentKind, ManualClock, parsePrice, parseSignedCount, PRICE_INVALID, PriceGrid } from '../../src/core/index.ts';
import type { BookSide, Centicents, Count, OrderIntent, Price } from '../../src/core/index.ts';
import { Oms } from '../../src/oms/index.ts';
import { Router } from '../../src/router/index.ts';
import type { ExecListener, FillInput, FillsQuery, Journal, NewOrder, OmsLogger, OmsOptions, OrderEntry, OrdersQuery, PositionsQuery, RecoveredJournal, UserOrderInput, WireFill, WireOrder, WirePosition } from '../../src/oms/index.ts';
import { RiskGate, riskLimits } from '../../src/risk/index.ts';
import type { BookView, RiskLimits } from '../../src/risk/index.ts';

export const p = (text: string): Price => parsePrice(text);
export const c = (text: string): Count => parseSignedCount(text);
export const START_MS = 1_800_000_000_000;

export class FakeBook implements BookView {
  synced = true;
  updatedAtMs = 0;
  bid: Price = PRICE_INVALID;
  ask: Price = PRICE_INVALID;
  bestBid(): Price {
    return this.bid;
  }
  bestAsk(): Price {
    return this.ask;
  }
}

export class FakeEntry implements OrderEntry {
  listener: ExecListener | null = null;
  creates: NewOrder[] = [];
  cancels: { orderId: string; subaccount: number }[] = [];
  amends: { orderId: string; price: Price; count: Count }[] = [];
  decreases: { orderId: string; reduceBy: Count }[] = [];
  cancelAlls: (number | null)[] = [];
  cancelAllFailures = 0;
  orders: WireOrder[] = [];
  fills: WireFill[] = [];
  positions: WirePosition[] = [];
  listOrdersCalls = 0;
  listFillsCalls = 0;

  setListener(listener: ExecListener): void {
    this.listener = listener;
  }
  create(order: Readonly<NewOrder>): void {
    // Field by field: the OMS hands its Order record, whose count is a getter a spread would miss.
    this.creates.push({
      clientOrderId: order.clientOrderId,
      ticker: order.ticker,
      side: order.side,
      price: order.price,
      count: order.count,
      timeInForce: order.timeInForce,
      postOnly: order.postOnly,
      reduceOnly: order.reduceOnly,
      selfTradePrevention: order.selfTradePrevention,
      subaccount: order.subaccount,
      orderGroupId: order.orderGroupId,
      expirationTs: order.expirationTs,
    });
  }
  cancel(orderId: string, subaccount: number): void {
    this.cancels.push({ orderId, subaccount });
  }
  amend(orderId: string, _ticker: string, _side: BookSide, price: Price, count: Count): void {
    this.amends.push({ orderId, price, count });
  }
  decrease(orderId: string, reduceBy: Count): void {
    this.decreases.push({ orderId, reduceBy });
  }
  async cancelAll(subaccount: number | null): Promise<void> {
    this.cancelAlls.push(subaccount);
    if (this.cancelAllFailures > 0) {
      this.cancelAllFailures--;
      throw new Error('EXEC_HTTP_5XX');
    }
  }
  async listOrders(query: OrdersQuery): Promise<WireOrder[]> {
    this.listOrdersCalls++;
    return this.orders.filter((o) => (query.ticker === undefined || o.ticker === query.ticker) && (query.subaccount === undefined || o.subaccount === query.subaccount));
  }
  async listFills(query: FillsQuery): Promise<WireFill[]> {
    this.listFillsCalls++;
    return this.fills.filter((f) => query.orderId === undefined || f.orderId === query.orderId);
  }
  async listPositions(query: PositionsQuery): Promise<WirePosition[]> {
    return this.positions.filter((x) => query.subaccount === undefined || x.subaccount === query.subaccount);
  }
}

export class MemoryLogger implements OmsLogger {
  lines: { level: string; fields: object; message: string }[] = [];
  info(fields: object, message: string): void {
    this.lines.push({ level: 'info', fields, message });
  }
  warn(fields: object, message: string): void {
    this.lines.push({ level: 'warn', fields, message });
  }
  error(fields: object, message: string): void {
    this.lines.push({ level: 'error', fields, message });
  }
}

export interface World {
  clock: ManualClock;
  gate: RiskGate;
  entry: FakeEntry;
  oms: Oms;
  router: Router;
  book: FakeBook;
  market: number;
  logger: MemoryLogger;
  intent: OrderIntent;
}

export const TICKER = 'KX-TEST-26';
export const GRACE_MS = 30_000;
export const PENDING_TIMEOUT_MS = 10_000;

export function world(
  options: { limits?: Partial<RiskLimits>; journal?: Journal | null; recovered?: RecoveredJournal | null; clock?: ManualClock; oms?: Partial<OmsOptions> } = {},
): World {
  const clock = options.clock ?? new ManualClock(START_MS);
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'prime', ...options.limits }), clock });
  const book = new FakeBook();
  book.updatedAtMs = clock.nowMs();
  const market = gate.addMarket(TICKER, PriceGrid.fromStructure('linear_cent'), book);
  const entry = new FakeEntry();
  const logger = new MemoryLogger();
  const oms = new Oms({
    reads: entry,
    listener: gate,
    clock,
    clientOrderIdPrefix: 'tst',
    journal: options.journal ?? null,
    recovered: options.recovered ?? null,
    logger,
    pendingTimeoutMs: PENDING_TIMEOUT_MS,
    unknownGraceMs: GRACE_MS,
    reconcileIntervalMs: 0,
    fillDedupCapacity: 1024,
    ...options.oms,
  });
  const router = new Router({ gate, oms, route: entry, clock });
  const intent = createIntent();
  intent.kind = IntentKind.NEW;
  intent.market = market;
  intent.side = 'bid';
  intent.price = p('0.40');
  intent.count = c('10');
  return { clock, gate, entry, oms, router, book, market, logger, intent };
}

let tradeSeq = 0;
export function fill(
  orderId: string,
  clientOrderId: string,
  side: BookSide,
  price: Price,
  count: Count,
  extra: Partial<{ tradeId: string; fee: Centicents; postPosition: Count; subaccount: number; ticker: string }> = {},
): FillInput {
  return {
    tradeId: extra.tradeId ?? `trade-${++tradeSeq}`,
    orderId,
    clientOrderId,
    marketTicker: extra.ticker ?? TICKER,
    isTaker: false,
    bookSide: side,
    yesPrice: price,
    count,
    feeCost: extra.fee ?? CENTICENTS_INVALID,
    postPosition: extra.postPosition ?? COUNT_INVALID,
    subaccount: extra.subaccount ?? -1,
    tsMs: START_MS,
  };
}

export function userOrder(
  orderId: string,
  clientOrderId: string,
  status: 'resting' | 'canceled' | 'executed',
  fillCount: Count,
  remainingCount: Count,
  price: Price = p('0.40'),
): UserOrderInput {
  return {
    orderId,
    clientOrderId,
    ticker: TICKER,
    status,
    bookSide: 'bid',
    yesPrice: price,
    fillCount,
    remainingCount,
    subaccount: 0,
    lastUpdatedTsMs: START_MS,
    lastUpdateReason: '',
  };
}

export function wireOrder(
  orderId: string,
  clientOrderId: string,
  status: 'resting' | 'canceled' | 'executed',
  fillCount: Count,
  remainingCount: Count,
  price: Price = p('0.40'),
): WireOrder {
  return {
    orderId,
    clientOrderId,
    ticker: TICKER,
    side: 'bid',
    price,
    status,
    fillCount,
    remainingCount,
    initialCount: (fillCount + remainingCount) as Count,
    subaccount: 0,
    orderGroupId: null,
    createdTimeMs: START_MS,
  };
}

export function wireFill(fillId: string, orderId: string, price: Price, count: Count, side: BookSide = 'bid'): WireFill {
  return {
    fillId,
    orderId,
    ticker: TICKER,
    side,
    price,
    count,
    isTaker: true,
    feeCenticents: 0 as Centicents,
    tsMs: START_MS,
    subaccount: 0,
  };
}
