/**
 * Test support for the strategy layer: a fake OMS behind the real RiskGate (submit = gate.check,
 * then an in-memory order table), real OrderBooks on a real grid, a manual clock and a silent
 * logger. Orders move only when a test says so (ack, fill, cancel), so tests drive every state.
 */

import { asCount, complementPrice, IntentKind, ManualClock, parseCount, parsePrice, PriceGrid } from '../../src/core/index.ts';
import type { BookSide, Count, OrderIntent, Price } from '../../src/core/index.ts';
import { OrderBook } from '../../src/book/index.ts';
import { Deny, RiskGate, riskLimits } from '../../src/risk/index.ts';
import type { RiskLimits } from '../../src/risk/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { OrderState } from '../../src/strategy/index.ts';
import type { MarketPort, OrderGroupPort, OrderPort, OrderView, StrategyHostPorts } from '../../src/strategy/index.ts';

export class FakeOrder implements OrderView {
  orderId = '';
  state: number = OrderState.PENDING_NEW;
  filledCount = 0;
  generation = 0;
  /** Fake orders are found by their id text only. */
  readonly handle = 0;
  constructor(
    readonly clientOrderId: string,
    readonly ticker: string,
    readonly side: BookSide,
    public price: Price,
    public remainingCount: number,
    readonly postOnly: boolean,
    readonly subaccount: number,
    readonly strategyId: number,
    readonly timeInForce: string,
  ) {}
}

export interface SentRecord {
  kind: number;
  clientOrderId: string;
  ticker: string;
  side: BookSide;
  price: Price;
  count: number;
  postOnly: boolean;
  timeInForce: string;
  subaccount: number;
  orderGroup: number;
  strategyId: number;
}

export class FakeOms implements OrderPort {
  readonly orders = new Map<string, FakeOrder>();
  readonly sent: SentRecord[] = [];
  readonly positions = new Map<string, number>();
  #counter = 0;
  /** When set, submit returns it without asking the gate (simulates an OMS-side refusal). */
  forceDeny: Deny | null = null;
  /** Called after each accepted submit, inside it (to simulate synchronous listener callbacks). */
  onAccepted: ((record: SentRecord) => void) | null = null;

  constructor(readonly gate: RiskGate, readonly tickers: () => string[]) {}

  submit(intent: OrderIntent): Deny {
    if (this.forceDeny !== null) return this.forceDeny;
    const deny = this.gate.check(intent);
    if (deny !== Deny.NONE) return deny;
    const ticker = this.gate.markets.at(intent.market)?.ticker ?? '';
    if (intent.kind === IntentKind.NEW) {
      intent.clientOrderId = `t-${++this.#counter}`;
      this.orders.set(intent.clientOrderId, new FakeOrder(intent.clientOrderId, ticker, intent.side, intent.price, intent.count, intent.postOnly, intent.subaccount, intent.strategyId, intent.timeInForce));
    } else {
      const order = this.orders.get(intent.clientOrderId);
      if (order === undefined) throw new Error(`fake OMS: unknown order ${intent.clientOrderId}`);
      if (intent.kind === IntentKind.CANCEL) order.state = OrderState.PENDING_CANCEL;
      if (intent.kind === IntentKind.AMEND) order.state = OrderState.PENDING_AMEND;
      if (intent.kind === IntentKind.DECREASE) order.state = OrderState.PENDING_DECREASE;
    }
    const record: SentRecord = {
      kind: intent.kind, clientOrderId: intent.clientOrderId, ticker, side: intent.side, price: intent.price, count: intent.count,
      postOnly: intent.postOnly, timeInForce: intent.timeInForce, subaccount: intent.subaccount, orderGroup: intent.orderGroup, strategyId: intent.strategyId,
    };
    this.sent.push(record);
    this.onAccepted?.(record);
    return Deny.NONE;
  }

  order(clientOrderId: string): OrderView | null {
    return this.orders.get(clientOrderId) ?? null;
  }

  openOrders(strategyId: number, ticker: string | null, out: OrderView[]): number {
    let n = 0;
    for (const order of this.orders.values()) {
      if (order.strategyId !== strategyId || (ticker !== null && order.ticker !== ticker)) continue;
      if (order.state === OrderState.FILLED || order.state === OrderState.CANCELED || order.state === OrderState.REJECTED) continue;
      out[n++] = order;
    }
    return n;
  }

  /** Routes this fake knows, by index (the runtime's: rest, then fix). */
  routeNames: string[] = ['rest', 'fix'];
  routeIndex(name: string): number {
    return this.routeNames.indexOf(name);
  }

  position(subaccount: number, ticker: string): Count {
    return asCount(this.positions.get(`${subaccount}:${ticker}`) ?? 0);
  }

  setPosition(subaccount: number, ticker: string, position: number): void {
    this.positions.set(`${subaccount}:${ticker}`, position);
  }

  // ---- the venue's answers, driven by tests ----

  ackAll(): void {
    for (const order of this.orders.values()) this.ack(order.clientOrderId);
  }

  /** The last request on the order was applied. */
  ack(clientOrderId: string): FakeOrder {
    const order = this.#get(clientOrderId);
    const last = [...this.sent].reverse().find((record) => record.clientOrderId === clientOrderId);
    if (order.orderId === '') order.orderId = `venue-${clientOrderId}`;
    if (order.state === OrderState.PENDING_NEW) order.state = order.timeInForce === 'good_till_canceled' ? OrderState.RESTING : OrderState.CANCELED;
    else if (order.state === OrderState.PENDING_CANCEL) order.state = OrderState.CANCELED;
    else if (order.state === OrderState.PENDING_AMEND && last !== undefined) {
      order.price = last.price;
      order.remainingCount = last.count;
      order.state = OrderState.RESTING;
    } else if (order.state === OrderState.PENDING_DECREASE && last !== undefined) {
      order.remainingCount -= last.count;
      order.state = order.remainingCount > 0 ? OrderState.RESTING : OrderState.CANCELED;
    }
    return order;
  }

  fill(clientOrderId: string, count: number): FakeOrder {
    const order = this.#get(clientOrderId);
    order.filledCount += count;
    order.remainingCount -= count;
    if (order.remainingCount <= 0) {
      order.remainingCount = 0;
      order.state = OrderState.FILLED;
    }
    const key = `${order.subaccount}:${order.ticker}`;
    this.positions.set(key, (this.positions.get(key) ?? 0) + (order.side === 'bid' ? count : -count));
    return order;
  }

  live(strategyId: number): FakeOrder[] {
    const out: OrderView[] = [];
    const n = this.openOrders(strategyId, null, out);
    return out.slice(0, n) as FakeOrder[];
  }

  #get(clientOrderId: string): FakeOrder {
    const order = this.orders.get(clientOrderId);
    if (order === undefined) throw new Error(`fake OMS: unknown order ${clientOrderId}`);
    return order;
  }
}

export class FakeMarkets implements MarketPort {
  readonly books = new Map<string, OrderBook>();
  ensured: string[] = [];
  constructor(readonly gate: RiskGate, readonly clock: ManualClock) {}

  addBook(ticker: string, grid = PriceGrid.fromStructure('linear_cent')): OrderBook {
    const book = new OrderBook(ticker, grid);
    this.books.set(ticker, book);
    this.gate.addMarket(ticker, grid, book);
    return book;
  }

  marketHandle(ticker: string): number {
    return this.gate.marketHandle(ticker);
  }

  book(ticker: string): OrderBook | undefined {
    return this.books.get(ticker);
  }

  async ensureMarkets(tickers: readonly string[]): Promise<void> {
    for (const ticker of tickers) {
      if (!this.books.has(ticker)) throw new Error(`unknown market ${ticker}`);
      this.ensured.push(ticker);
    }
  }
}

export class FakeGroups implements OrderGroupPort {
  created: { subaccount: number; limit: number; handle: number }[] = [];
  released: number[] = [];
  constructor(readonly gate: RiskGate) {}
  async create(subaccount: number, contractsLimit: Count): Promise<number> {
    const handle = this.gate.addOrderGroup(`group-${this.created.length + 1}`, subaccount, contractsLimit);
    this.created.push({ subaccount, limit: contractsLimit, handle });
    return handle;
  }
  async release(handle: number): Promise<void> {
    this.released.push(handle);
  }
}

/** Snapshot a book: YES bids and YES asks as [price text, count text] pairs (asks stored as NO bids at 1 - p). */
export function setBook(book: OrderBook, bids: [string, string][], asks: [string, string][]): void {
  book.beginSnapshot();
  for (const [price, count] of bids) book.setLevel(0, parsePrice(price), parseCount(count));
  for (const [price, count] of asks) book.setLevel(1, complementPrice(parsePrice(price)), parseCount(count));
  book.endSnapshot();
  book.updatedAtMs = 0;
}

export interface Harness {
  clock: ManualClock;
  gate: RiskGate;
  oms: FakeOms;
  markets: FakeMarkets;
  groups: FakeGroups;
  ports: StrategyHostPorts;
}

export function harness(limits: Partial<RiskLimits> = {}): Harness {
  const clock = new ManualClock(1_700_000_000_000);
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'prime', ...limits }), clock });
  const markets = new FakeMarkets(gate, clock);
  const oms = new FakeOms(gate, () => [...markets.books.keys()]);
  const groups = new FakeGroups(gate);
  const logger = createLogger({ level: 'silent', pretty: false });
  return { clock, gate, oms, markets, groups, ports: { orders: oms, markets, orderGroups: groups, clock, logger } };
}
