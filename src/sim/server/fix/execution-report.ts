/**
 * The simulator's ExecutionReport (35=8): one record per report, filled from the engine's order
 * and fill, and the writer that renders it onto a FixEncoder with the receiving session's Logon
 * flags (fix.md §2, §4, §5): prices in cents or dollars (21005), OrderQty as CumQty + LeavesQty or
 * the original quantity (21008), the split collateral fields (21027), expired status (21012).
 * A record is rendered again, with other flags, when the drop-copy session replays it. Records
 * are plain objects (the simulator is not the runtime's hot path; a report per order event).
 *
 * ExecID (17) is "clock;event" on exchange index 0 and "clock;event;index" elsewhere, sequenced per
 * index; pending reports and rejects use "-1;-1" and are never replayed by drop copy (fix.md §3).
 */

import type { FixEncoder } from '../../../fix/index.ts';
import { Tag } from '../../../fix/index.ts';
import { easternDate } from './eastern-time.ts';

/** Per-session rendering switches taken from its Logon (fix.md §2). */
export interface ReportFlags {
  dollars: boolean; // 21005
  preserveOriginalQty: boolean; // 21008
  splitCollateral: boolean; // 21027
  expiredStatus: boolean; // 21012
}

export const PENDING_EXEC_ID = '-1;-1';

export interface ExecutionReportRecord {
  orderId: string; // 37 ("NONE" on a reject without an order)
  clOrdId: string; // 11
  origClOrdId: string; // 41, '' when absent
  execId: string; // 17
  /** Position in the per-index sequence (drop copy ranges); -1 for pending and rejects. */
  execSeq: number;
  execType: string; // 150
  ordStatus: string; // 39
  symbol: string; // 55
  side: '1' | '2'; // 54
  orderQty: number; // CumQty + LeavesQty (Count)
  originalQty: number; // the order's first OrderQty, for 21008
  price: number; // 44, YES price; -1 = absent
  cumQty: number;
  leavesQty: number;
  avgPx: number; // 6, price units (1/10,000 $)
  lastPx: number; // 31, -1 unless a trade
  lastQty: number; // 32
  transactTimeMs: number; // 60
  lastMkt: number; // 30, exchange index; -1 = absent
  timeInForce: string; // 59 on Replaced reports, '' otherwise
  expireTimeMs: number; // 126, 0 = absent
  ordRejReason: number; // 103, -1 = absent
  text: string; // 58, '' = absent
  allocAccount: number; // 79, -1 = absent
  // trade fields (150=F)
  longQty: number; // 704
  shortQty: number; // 705
  feeCenticents: number; // 137
  trdMatchId: string; // 880
  aggressor: boolean; // 1057
  collateralChangeCenticents: number; // 1704 (BALANCE)
  singleMarketReturnCenticents: number; // 21030
  rangedMarketReturnCenticents: number; // 21031
  // routing (not rendered)
  userId: string;
  exchangeIndex: number;
}

export function newReport(): ExecutionReportRecord {
  return {
    orderId: 'NONE', clOrdId: '', origClOrdId: '', execId: PENDING_EXEC_ID, execSeq: -1, execType: '0', ordStatus: '0',
    symbol: '', side: '1', orderQty: 0, originalQty: 0, price: -1, cumQty: 0, leavesQty: 0, avgPx: 0, lastPx: -1, lastQty: 0,
    transactTimeMs: 0, lastMkt: -1, timeInForce: '', expireTimeMs: 0, ordRejReason: -1, text: '', allocAccount: -1,
    longQty: 0, shortQty: 0, feeCenticents: 0, trdMatchId: '', aggressor: false, collateralChangeCenticents: 0,
    singleMarketReturnCenticents: 0, rangedMarketReturnCenticents: 0, userId: '', exchangeIndex: 0,
  };
}

/** Allocates ExecIDs per exchange index: "clock;event" (index 0) or "clock;event;index". */
export class ExecIdSource {
  readonly #clock: number;
  readonly #events = new Map<number, number>();
  constructor(clock: number) {
    this.#clock = clock;
  }
  get clock(): number {
    return this.#clock;
  }
  /** Stamps `record` with the next ExecID of its exchange index. */
  stamp(record: ExecutionReportRecord): void {
    const event = (this.#events.get(record.exchangeIndex) ?? 0) + 1;
    this.#events.set(record.exchangeIndex, event);
    record.execSeq = event;
    record.execId = record.exchangeIndex === 0 ? `${this.#clock};${event}` : `${this.#clock};${event};${record.exchangeIndex}`;
  }
  /** The last event number issued on `exchangeIndex` (0 when none). */
  last(exchangeIndex: number): number {
    return this.#events.get(exchangeIndex) ?? 0;
  }
}

/** Parses "clock;event" or "clock;event;index"; null when malformed. */
export function parseExecId(text: string): { clock: number; event: number; index: number } | null {
  const match = /^(\d{1,15});(\d{1,15})(?:;(\d{1,3}))?$/.exec(text);
  if (match === null) return null;
  return { clock: Number(match[1]), event: Number(match[2]), index: match[3] === undefined ? 0 : Number(match[3]) };
}

function writePrice(encoder: FixEncoder, tag: number, price: number, dollars: boolean): void {
  // Cents mode (fix.md §4): whole cents; a sub-cent value keeps its decimals rather than being rounded.
  if (dollars) encoder.price(tag, price);
  else encoder.fixed(tag, price, 2, 0);
}

/** Writes the body of `record` (after the header begin() wrote) with the session's `flags`. */
export function writeExecutionReport(encoder: FixEncoder, record: ExecutionReportRecord, flags: ReportFlags): void {
  encoder.string(Tag.OrderID, record.orderId).string(Tag.ClOrdID, record.clOrdId);
  if (record.origClOrdId !== '') encoder.string(Tag.OrigClOrdID, record.origClOrdId);
  let execType = record.execType;
  let ordStatus = record.ordStatus;
  if (flags.expiredStatus && record.text === 'EXPIRED' && execType === '4') {
    execType = 'C';
    ordStatus = 'C';
  }
  encoder.string(Tag.ExecID, record.execId).string(Tag.ExecType, execType).string(Tag.OrdStatus, ordStatus)
    .string(Tag.Symbol, record.symbol).string(Tag.Side, record.side)
    .count(Tag.OrderQty, flags.preserveOriginalQty ? record.originalQty : record.orderQty);
  if (record.price >= 0) writePrice(encoder, Tag.Price, record.price, flags.dollars);
  const trade = execType === 'F';
  if (trade) {
    encoder.count(Tag.LastQty, record.lastQty);
    writePrice(encoder, Tag.LastPx, record.lastPx, flags.dollars);
  }
  encoder.count(Tag.CumQty, record.cumQty).count(Tag.LeavesQty, record.leavesQty);
  writePrice(encoder, Tag.AvgPx, record.avgPx, flags.dollars);
  if (record.transactTimeMs > 0) encoder.timestamp(Tag.TransactTime, record.transactTimeMs);
  if (record.lastMkt >= 0) encoder.int(Tag.LastMkt, record.lastMkt);
  if (trade) encoder.int(Tag.ClearingBusinessDate, easternDate(record.transactTimeMs));
  if (record.timeInForce !== '') encoder.string(Tag.TimeInForce, record.timeInForce);
  if (record.expireTimeMs > 0) encoder.timestamp(Tag.ExpireTime, record.expireTimeMs);
  if (record.ordRejReason >= 0) encoder.int(Tag.OrdRejReason, record.ordRejReason);
  if (record.text !== '') encoder.string(Tag.Text, record.text);
  if (record.allocAccount >= 0) encoder.int(Tag.AllocAccount, record.allocAccount);
  if (!trade) return;
  encoder.string(Tag.TrdMatchID, record.trdMatchId).flag(Tag.AggressorIndicator, record.aggressor)
    .count(Tag.LongQty, record.longQty).count(Tag.ShortQty, record.shortQty)
    .int(Tag.NoMiscFees, 1).dollars(Tag.MiscFeeAmt, record.feeCenticents, 2).string(Tag.MiscFeeCurr, 'USD')
    .int(Tag.MiscFeeType, 4).int(Tag.MiscFeeBasis, 0)
    .int(Tag.NoCollateralAmountChanges, 1).dollars(Tag.CollateralAmountChange, record.collateralChangeCenticents, 2)
    .string(Tag.CollateralType, 'BALANCE');
  if (flags.splitCollateral) {
    if (record.singleMarketReturnCenticents !== 0) encoder.dollars(Tag.SingleMarketCollateralReturn, record.singleMarketReturnCenticents, 2);
    if (record.rangedMarketReturnCenticents !== 0) encoder.dollars(Tag.RangedMarketCollateralReturn, record.rangedMarketReturnCenticents, 2);
  }
}
