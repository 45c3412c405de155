/**
 * The FIX codec part of the fix suite: our encoder and parser (src/fix) against jspurefix (the
 * independent FIX engine, a dev dependency, with its FIX 5.0 SP2 QuickFIX dictionary and a FIXT.1.1
 * header, configured as test/fix/jspurefix-interop.test.ts does) on the same two messages:
 *
 * - NewOrderSingle with the fields FixOrderEntry.create sends for the tick-to-trade strategy's bid
 *   (11, 55, 54, 38, 40, 44, 59, 18, 100, 2964), header 49/56/34/52 from a live sequence number and the
 *   clock. Ours: FixEncoder begin() ... finish(), a view into its reused buffer (the targeted row),
 *   and in a second row plus the copy the route's transport makes for socket.write. jspurefix: what its transmitter
 *   does per message (encoder.reset(), encodeMessage('D', object), encoder.trim()): its buffer holds
 *   '|' between fields (its log delimiter) and trim() is what copies the message out with SOH, the
 *   only way to get wire bytes from it; the 'encoded' event's text copy is left out, in its favour.
 *   Both build the message from the same order record per call.
 * - ExecutionReport: a fill as the venue sends it after a 21005=Y logon (the simulator's own writer,
 *   src/sim/server/fix/execution-report.ts: ExecID clock;event, LastMkt, ClearingBusinessDate, the
 *   fee and collateral groups, the split collateral returns). Ours: FixFramer.push (the streaming
 *   path FixSession.receive takes: copy, frame, BodyLength and CheckSum checked, fields indexed)
 *   and the fields FixOrderEntry reads from a report (11, 37, 150, 39, 14, 151, 60, 54, 55, 44).
 *   jspurefix: AsciiParser.parseBuffer (its streaming path: copy, tokenise; it does not verify the
 *   checksum) and the same fields through its view (getString / getTyped).
 *
 * sameNewOrderSingle() checks the two encoders wrote the same fields and values, so the rows
 * compare like with like. Every loop is bounded in count and time. Measures; decides nothing.
 */

import { createRequire } from 'node:module';
import {
  FixEncoder, FixFramer, FixMessage, MsgType, Tag, parseMessage, type FixError,
} from '../../src/fix/index.ts';
import { newReport, writeExecutionReport } from '../../src/sim/server/fix/execution-report.ts';
import {
  consume, createHistogram, latencyRow, measureThroughputInterleaved, nowNs, recordNs, throughputRow,
} from '../harness.ts';
import type { BenchRow, Histogram } from '../harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- jspurefix is loaded untyped through require, as in its interop test */

export const KEY_ID = '4b1d2c3e-5f60-4a7b-8c9d-0e1f2a3b4c5d';
const T0 = Date.parse('2026-11-22T14:30:00.412Z');

export const ENCODE_OURS = 'encode NewOrderSingle: ours (FixEncoder begin -> finish)';
export const ENCODE_COPY_OURS = 'encode NewOrderSingle + copy out: ours (finish, then Buffer.from as the route\'s transport)';
export const ENCODE_PEER = 'baseline: encode NewOrderSingle: jspurefix (AsciiMsgTransmitter.encodeMessage + trim)';
export const PARSE_OURS = 'parse ExecutionReport + read the route\'s 10 fields: ours (FixFramer.push)';
export const PARSE_PEER = 'baseline: parse ExecutionReport + read the same fields: jspurefix (AsciiParser.parseBuffer, view)';
export const PARSE_ONLY_OURS = 'parse ExecutionReport only: ours (FixFramer.push, handler reads nothing)';
export const PARSE_ONLY_PEER = 'baseline: parse ExecutionReport only: jspurefix (AsciiParser.parseBuffer, view taken)';
const ENCODE_TARGET_NS = 1_000;
const PARSE_TARGET_NS = 600;
const RATIO_TARGET = 5;

export interface CodecPhase {
  /** Latency samples per case (interleaved case by case). */
  samples: number;
  warmup: number;
  /** Throughput: rounds of roundMs per case, interleaved. */
  rounds: number;
  roundMs: number;
  budgetMs: number;
}

export const CODEC_QUICK: CodecPhase = { samples: 20_000, warmup: 20_000, rounds: 3, roundMs: 150, budgetMs: 4_000 };
export const CODEC_FULL: CodecPhase = { samples: 300_000, warmup: 100_000, rounds: 9, roundMs: 400, budgetMs: 20_000 };

/** The order record both encoders render (the tick-to-trade strategy's far post-only bid). */
interface OrderFields {
  clOrdId: string;
  symbol: string;
  count: number; // 1/100 contract
  price: number; // 1/10,000 dollar
}

const ORDER: OrderFields = { clOrdId: 'rt-mwsbapda-1000000', symbol: 'KXDEMO-26DEC31-T50', count: 100, price: 4000 };

/** jspurefix, configured from its FIX 5.0 SP2 dictionary: a transmitter (initiator side) and a parser. */
export interface Peer {
  transmitter: any;
  parser: any;
  /** Fields the last parse read (the 'msg' handler's output), so the JIT cannot drop them. */
  read: { values: unknown[]; count: number };
  /** When false the 'msg' handler takes the view and reads nothing. */
  readFields: boolean;
}

function description(type: 'initiator', sender: string, target: string): any {
  return {
    application: { type, name: `bench-${type}`, tcp: { host: '127.0.0.1', port: 0 }, protocol: 'ascii', dictionary: 'qf50sp2' },
    SenderCompId: sender, TargetCompID: target, BeginString: 'FIXT.1.1', HeartBtInt: 30, ResetSeqNumFlag: true,
    EncryptMethod: 0, DefaultApplVerID: '9',
  };
}

export async function createPeer(): Promise<Peer> {
  const require = createRequire(import.meta.url);
  require('reflect-metadata');
  const jf = require('jspurefix');
  const { makeSessionScope } = require('jspurefix/dist/runtime/session-scope');
  const container = new jf.SessionContainer();
  container.registerGlobal('error');
  // One system (loading the dictionary takes seconds): the transmitter and the parser each get a session scope of it.
  const initiator = (await container.makeSystem(description('initiator', KEY_ID, 'KalshiNR'))).resolve('IJsFixConfig');
  const transmitter = makeSessionScope(initiator).sessionContainer.resolve('MsgTransmitter');
  const scoped = makeSessionScope(initiator);
  const parser = new jf.AsciiParser(scoped, null, scoped.sessionContainer.resolve('ReceiveBuffer'));
  const peer: Peer = { transmitter, parser, read: { values: new Array<unknown>(10).fill(null), count: 0 }, readFields: true };
  parser.on('msg', (_msgType: string, view: any) => {
    const read = peer.read;
    read.count++;
    if (!peer.readFields) {
      read.values[0] = view;
      return;
    }
    const values = read.values;
    values[0] = view.getString(Tag.ClOrdID);
    values[1] = view.getString(Tag.OrderID);
    values[2] = view.getString(Tag.ExecType);
    values[3] = view.getString(Tag.OrdStatus);
    values[4] = view.getTyped(Tag.CumQty);
    values[5] = view.getTyped(Tag.LeavesQty);
    values[6] = view.getTyped(Tag.TransactTime);
    values[7] = view.getString(Tag.Side);
    values[8] = view.getString(Tag.Symbol);
    values[9] = view.getTyped(Tag.Price);
  });
  parser.on('error', (error: Error) => {
    throw error;
  });
  return peer;
}

/** Ours: the NewOrderSingle exactly as FixOrderEntry.create writes this order (post-only GTC bid, subaccount 0). */
export function encodeOurs(encoder: FixEncoder, seq: number, nowMs: number, order: OrderFields = ORDER): Buffer {
  return encoder.begin(MsgType.NewOrderSingle, KEY_ID, 'KalshiNR', seq, nowMs)
    .string(Tag.ClOrdID, order.clOrdId).string(Tag.Symbol, order.symbol).string(Tag.Side, '1')
    .count(Tag.OrderQty, order.count, 2).string(Tag.OrdType, '2').price(Tag.Price, order.price)
    .string(Tag.TimeInForce, '1').string(Tag.ExecInst, '6').int(Tag.ExDestination, -1)
    .string(Tag.SelfTradePreventionType, '1')
    .finish();
}

/**
 * jspurefix: the same message from the same record, as its transmitter encodes one (header from its
 * session factory, body, BodyLength, CheckSum); returns the wire bytes trim() copies out of its buffer.
 */
export function encodePeer(peer: Peer, order: OrderFields = ORDER): Buffer {
  const transmitter = peer.transmitter;
  transmitter.encoder.reset();
  transmitter.encodeMessage('D', {
    ClOrdID: order.clOrdId,
    Instrument: { Symbol: order.symbol },
    Side: '1',
    OrderQtyData: { OrderQty: order.count / 100 },
    OrdType: '2',
    Price: order.price / 10_000,
    TimeInForce: '1',
    ExecInst: '6',
    ExDestination: '-1',
    SelfMatchPreventionInstruction: 1,
  });
  return transmitter.encoder.trim();
}

/** A fill report as the simulator's acceptor writes it for a 21005=Y (dollar prices) session. */
export function executionReportBytes(): Buffer {
  const record = newReport();
  Object.assign(record, {
    orderId: 'ee5b1c2a-7d3f-4b8e-9a61-0c2f4d5e6a7b', clOrdId: ORDER.clOrdId, execId: '5812;90417', execSeq: 90417, execType: 'F',
    ordStatus: '1', symbol: ORDER.symbol, side: '1', orderQty: 1000, originalQty: 1000, price: 4200, cumQty: 400, leavesQty: 600,
    avgPx: 4200, lastPx: 4200, lastQty: 400, transactTimeMs: T0 + 6, lastMkt: 0, longQty: 400, shortQty: 0, feeCenticents: 700,
    trdMatchId: 'c7d1e0f2-5a4b-4c3d-8e9f-1a2b3c4d5e6f', aggressor: true, collateralChangeCenticents: -17500,
    singleMarketReturnCenticents: 1200, rangedMarketReturnCenticents: 0,
  });
  const encoder = new FixEncoder();
  writeExecutionReport(encoder.begin(MsgType.ExecutionReport, 'KalshiNR', KEY_ID, 3, T0 + 6), record,
    { dollars: true, preserveOriginalQty: false, splitCollateral: true, expiredStatus: false });
  return Buffer.from(encoder.finish());
}

/** Our parse path: the framer FixSession.receive feeds, with a handler reading what FixOrderEntry reads. */
export class OursParser {
  readonly framer: FixFramer;
  readFields = true;
  messages = 0;
  errors = 0;
  // What the handler read, kept on the instance so nothing is dropped.
  clOrdId: string | null = null;
  orderId: string | null = null;
  execType: string | null = null;
  ordStatus: string | null = null;
  cumQty = 0;
  leavesQty = 0;
  transactTimeMs = 0;
  side = false;
  symbol: string | null = null;
  price = 0;

  constructor() {
    this.framer = new FixFramer({
      onMessage: (message) => this.#onMessage(message),
      onError: (_error: FixError) => {
        this.errors++;
      },
    });
  }

  #onMessage(message: FixMessage): void {
    this.messages++;
    if (!this.readFields) return;
    // As FixOrderEntry.#onExecutionReport / #noteOrder read a report.
    this.clOrdId = message.getString(Tag.ClOrdID);
    this.orderId = message.getString(Tag.OrderID);
    this.execType = message.getString(Tag.ExecType);
    this.ordStatus = message.getString(Tag.OrdStatus);
    this.cumQty = message.getCount(Tag.CumQty);
    this.leavesQty = message.getCount(Tag.LeavesQty);
    this.transactTimeMs = message.getTimestamp(Tag.TransactTime);
    this.side = message.valueEquals(Tag.Side, '2');
    this.symbol = message.getString(Tag.Symbol);
    this.price = message.getPrice(Tag.Price);
  }
}

/** Tag=value pairs of one message, header and trailer fields left out (they differ by design: seq, time, padding). */
export function bodyFields(bytes: Buffer): Array<[number, string]> {
  const parsed = parseMessage(Buffer.from(bytes));
  if (!(parsed instanceof FixMessage)) throw new Error(`bench fix: not a FIX message: ${parsed.message}`);
  const skip = new Set<number>([Tag.BeginString, Tag.BodyLength, Tag.MsgSeqNum, Tag.SendingTime, Tag.CheckSum]);
  const fields: Array<[number, string]> = [];
  for (let i = 0; i < parsed.fieldCount; i++) {
    const tag = parsed.tagAt(i);
    if (!skip.has(tag)) fields.push([tag, parsed.stringAt(i) ?? '']);
  }
  return fields.sort((a, b) => a[0] - b[0]);
}

/**
 * Both encoders' NewOrderSingle for the same order: the same body fields and values once numbers are
 * compared as numbers (jspurefix writes 1 and 0.4 where we write 1.00 and 0.4000, both valid FIX).
 */
export function sameNewOrderSingle(peer: Peer): { same: boolean; ours: Array<[number, string]>; peer: Array<[number, string]> } {
  const ours = bodyFields(Buffer.from(encodeOurs(new FixEncoder(), 2, T0)));
  const theirs = bodyFields(Buffer.from(encodePeer(peer)));
  const numeric = new Set<number>([Tag.OrderQty, Tag.Price]);
  const norm = (fields: Array<[number, string]>): string => JSON.stringify(fields.map(([tag, value]) => [tag, numeric.has(tag) ? Number(value) : value]));
  return { same: norm(ours) === norm(theirs), ours, peer: theirs };
}

interface TimedCase {
  name: string;
  op: () => void;
  histogram: Histogram;
}

/** Times each case call by call, the cases interleaved call by call (starting case rotating), bounded in count and time. */
function measureInterleaved(cases: TimedCase[], phase: CodecPhase): void {
  let deadline = performance.now() + phase.budgetMs;
  for (let i = 0; i < phase.warmup; i++) {
    for (let k = 0; k < cases.length; k++) cases[k].op();
    if ((i & 1023) === 0 && performance.now() > deadline) break;
  }
  deadline = performance.now() + phase.budgetMs;
  for (let i = 0; i < phase.samples; i++) {
    for (let k = 0; k < cases.length; k++) {
      const item = cases[(i + k) % cases.length];
      const start = nowNs();
      item.op();
      recordNs(item.histogram, nowNs() - start);
    }
    if ((i & 1023) === 0 && performance.now() > deadline) break;
  }
}

/** The codec rows: encode and parse, ours beside jspurefix, latency then throughput, with the targets. */
export async function codecRows(suite: string, phase: CodecPhase, peerGiven: Peer | null = null): Promise<BenchRow[]> {
  const peer = peerGiven ?? (await createPeer());
  const check = sameNewOrderSingle(peer);
  if (!check.same) throw new Error(`bench fix: the two NewOrderSingles differ: ours ${JSON.stringify(check.ours)}, jspurefix ${JSON.stringify(check.peer)}`);
  const encoder = new FixEncoder();
  let seq = 1;
  const report = executionReportBytes();
  const ours = new OursParser();
  const encodeOursOp = (): void => {
    consume(encodeOurs(encoder, ++seq, Date.now()));
  };
  const encodeCopyOp = (): void => {
    consume(Buffer.from(encodeOurs(encoder, ++seq, Date.now())));
  };
  const encodePeerOp = (): void => {
    consume(encodePeer(peer));
  };
  const parseOursOp = (): void => {
    ours.framer.push(report);
  };
  const parsePeerOp = (): void => {
    peer.parser.parseBuffer(report);
  };
  const rows: BenchRow[] = [];

  // Latency, call by call.
  const encodeCases: TimedCase[] = [
    { name: ENCODE_OURS, op: encodeOursOp, histogram: createHistogram() },
    { name: ENCODE_PEER, op: encodePeerOp, histogram: createHistogram() },
    { name: ENCODE_COPY_OURS, op: encodeCopyOp, histogram: createHistogram() },
  ];
  measureInterleaved(encodeCases, phase);
  const parseCases: TimedCase[] = [
    { name: PARSE_OURS, op: parseOursOp, histogram: createHistogram() },
    { name: PARSE_PEER, op: parsePeerOp, histogram: createHistogram() },
  ];
  measureInterleaved(parseCases, phase);
  if (ours.errors !== 0 || ours.messages === 0 || peer.read.count === 0) throw new Error('bench fix: a parser saw no report or an error');
  if (ours.cumQty !== 400 || ours.leavesQty !== 600 || ours.price !== 4200 || peer.read.values[0] !== ORDER.clOrdId) {
    throw new Error('bench fix: a parser read the wrong values');
  }
  ours.readFields = false;
  peer.readFields = false;
  const parseOnlyCases: TimedCase[] = [
    { name: PARSE_ONLY_OURS, op: parseOursOp, histogram: createHistogram() },
    { name: PARSE_ONLY_PEER, op: parsePeerOp, histogram: createHistogram() },
  ];
  measureInterleaved(parseOnlyCases, phase);
  ours.readFields = true;
  peer.readFields = true;

  // Throughput: the same ops in tight loops, cases interleaved round by round.
  const batch = 64;
  const loop = (op: () => void) => (): void => {
    for (let i = 0; i < batch; i++) op();
  };
  const throughput = measureThroughputInterleaved(
    [encodeOursOp, encodePeerOp, parseOursOp, parsePeerOp].map((op) => ({ run: loop(op), opsPerCall: batch })),
    { rounds: phase.rounds, roundMs: phase.roundMs, warmupMs: Math.min(200, phase.roundMs) },
  );

  const encodeBytes = Buffer.from(encodeOurs(new FixEncoder(), 2, T0)).length;
  const peerBytes = Buffer.from(encodePeer(peer)).length;
  const [encodeO, encodeP, encodeCopyO] = encodeCases.map((item) => item.histogram);
  const [parseO, parseP] = parseCases.map((item) => item.histogram);
  const [parseOnlyO, parseOnlyP] = parseOnlyCases.map((item) => item.histogram);
  rows.push(
    latencyRow(suite, ENCODE_OURS, false, encodeO, {
      compareTo: ENCODE_PEER,
      ...target(encodeO, encodeP, ENCODE_TARGET_NS),
      note: `${encodeBytes} B; view of the reused buffer; ${verdictNote(encodeO, encodeP, ENCODE_TARGET_NS)}`,
    }),
    latencyRow(suite, ENCODE_COPY_OURS, false, encodeCopyO, { compareTo: ENCODE_PEER, note: `the same bytes copied into a new Buffer, as jspurefix's trim() hands them out; ${ratioNote(encodeCopyO, encodeP)}` }),
    latencyRow(suite, ENCODE_PEER, true, encodeP, { note: `${peerBytes} B (BodyLength zero-padded to 7); trim() copies the message out of its buffer with SOH for '|'; its 'encoded' event text left out` }),
    latencyRow(suite, PARSE_OURS, false, parseO, {
      compareTo: PARSE_PEER,
      ...target(parseO, parseP, PARSE_TARGET_NS),
      note: `${report.length} B fill report (fee and collateral groups, 21030); BodyLength and CheckSum verified; ${verdictNote(parseO, parseP, PARSE_TARGET_NS)}`,
    }),
    latencyRow(suite, PARSE_PEER, true, parseP, { note: 'jspurefix does not verify the checksum on parse' }),
    latencyRow(suite, PARSE_ONLY_OURS, false, parseOnlyO, { compareTo: PARSE_ONLY_PEER, note: `framing and field index only; ${ratioNote(parseOnlyO, parseOnlyP)}` }),
    latencyRow(suite, PARSE_ONLY_PEER, true, parseOnlyP),
    throughputRow(suite, `${ENCODE_OURS}, throughput`, false, throughput[0], { compareTo: `${ENCODE_PEER}, throughput` }),
    throughputRow(suite, `${ENCODE_PEER}, throughput`, true, throughput[1]),
    throughputRow(suite, `${PARSE_OURS}, throughput`, false, throughput[2], { compareTo: `${PARSE_PEER}, throughput` }),
    throughputRow(suite, `${PARSE_PEER}, throughput`, true, throughput[3]),
  );
  return rows;
}

function ratio(ours: Histogram, peer: Histogram): number {
  const p50 = ours.getValueAtPercentile(50);
  return p50 > 0 ? peer.getValueAtPercentile(50) / p50 : 0;
}

/** target and pass: p50 at most `targetNs` and at least RATIO_TARGET times faster than the peer at p50. */
function target(ours: Histogram, peer: Histogram, targetNs: number): { target: string; pass: boolean } {
  const p50 = ours.getValueAtPercentile(50);
  return { target: `p50 <= ${targetNs} ns and >= ${RATIO_TARGET}x jspurefix`, pass: p50 <= targetNs && ratio(ours, peer) >= RATIO_TARGET };
}

function ratioNote(ours: Histogram, peer: Histogram): string {
  return `p50 ratio jspurefix/ours ${ratio(ours, peer).toFixed(2)}x`;
}

/** Says by how much each half of the target was met or missed. */
function verdictNote(ours: Histogram, peer: Histogram, targetNs: number): string {
  const p50 = ours.getValueAtPercentile(50);
  const r = ratio(ours, peer);
  const time = p50 <= targetNs ? `p50 ${p50} ns meets ${targetNs} ns` : `p50 ${p50} ns misses ${targetNs} ns by ${p50 - targetNs} ns (${((p50 / targetNs - 1) * 100).toFixed(0)}%)`;
  const times = r >= RATIO_TARGET ? `${r.toFixed(2)}x jspurefix meets ${RATIO_TARGET}x` : `${r.toFixed(2)}x jspurefix misses ${RATIO_TARGET}x`;
  return `${time}; ${times}`;
}
