/**
 * The main job's once-a-second status: one compact line rewritten in place on a terminal, or one
 * JSON object per line otherwise (logs, CI), and the shutdown summary. Owns formatting only.
 */

import { asCount, formatCount } from '../core/index.ts';
import type { RuntimeStatus } from './runtime.ts';

/** Dollars from micro-dollars, 4 decimals, sign kept. */
export function formatMicroDollars(micro: number): string {
  const tenThousandths = Math.round(micro / 100);
  const sign = tenThousandths < 0 ? '-' : '';
  const abs = Math.abs(tenThousandths);
  return `${sign}$${Math.floor(abs / 10_000)}.${String(abs % 10_000).padStart(4, '0')}`;
}

function microseconds(us: number): string {
  return us >= 100 ? us.toFixed(0) : us.toFixed(1);
}

/**
 * One line at any number of markets: totals, the top TOP_ROWS positions by |PnL| and most active
 * markets (status() ranks them), the write budget and the RFQ counters; never a field per market.
 */
export function statusText(status: RuntimeStatus, elapsedSec: number): string {
  const denies = Object.entries(status.denies);
  const deniesText = denies.length === 0 ? 'none' : denies.map(([name, n]) => `${name}=${n}`).join(' ');
  const t2t = status.tickToTradeCount === 0 ? 'n/a' : `p50 ${microseconds(status.tickToTradeUsP50)}µs p99 ${microseconds(status.tickToTradeUsP99)}µs${firstByteText(status)}`;
  const kill = status.killSwitch === null ? '' : `KILL SWITCH (${status.killSwitch.source}: ${status.killSwitch.reason}) | `;
  return `${kill}${elapsedSec}s | books ${status.booksSynced}/${status.booksTotal} | open ${status.openOrders} | sent ${status.ordersSent} | fills ${status.fills} | pos ${positionsText(status)} | PnL ${formatMicroDollars(status.pnlMicro)} | t2t ${t2t} | denies ${deniesText}${budgetText(status)}${activeText(status)}${rfqText(status)}${loopText(status)}${poolText(status)}`;
}

/** " (first byte p50 21µs p99 80µs)": frame received -> the order's first byte handed to socket.write; '' before any. */
function firstByteText(status: RuntimeStatus): string {
  const first = status.firstByte;
  return first === undefined || first.count === 0 ? '' : ` (first byte p50 ${microseconds(first.p50Us)}µs p99 ${microseconds(first.p99Us)}µs)`;
}

/** "KXA/1 -2.50 KXB +1.00 +12 more", or "flat". */
function positionsText(status: RuntimeStatus): string {
  if (status.positions.length === 0) return 'flat';
  const shown = status.positions.map((p) => `${p.ticker}${p.subaccount === 0 ? '' : `/${p.subaccount}`} ${p.position > 0 ? '+' : ''}${formatCount(asCount(p.position))}`).join(' ');
  const hidden = (status.positionsTotal ?? status.positions.length) - status.positions.length;
  return hidden > 0 ? `${shown} +${hidden} more` : shown;
}

/** " | budget 40/50 tok 3/s of 10/s held 2 sent 5 dropped 0 batches 3": '' when not reported. */
function budgetText(status: RuntimeStatus): string {
  const b = status.budget;
  if (b === undefined) return '';
  return ` | budget ${b.writeTokens}/${b.writeCapacity} tok ${b.writeSpentPerSecond}/s of ${b.writePerSecond}/s held ${b.held} sent ${b.heldSent} dropped ${b.heldDropped} batches ${b.batchesSent}`;
}

/** " | active KXA 120/s KXB 80/s": the most active books; '' when not reported or all quiet. */
function activeText(status: RuntimeStatus): string {
  const active = status.mostActive;
  if (active === undefined || active.length === 0) return '';
  return ` | active ${active.map((m) => `${m.ticker} ${m.changesPerSecond}/s`).join(' ')}`;
}

/** " | rfq seen 5 quoted 3 accepted 1 executed 1 denied 0": '' when quoting is off. */
function rfqText(status: RuntimeStatus): string {
  const rfq = status.rfq;
  if (rfq === undefined || rfq === null) return '';
  return ` | rfq seen ${rfq.rfqsSeen} quoted ${rfq.quotesSent} accepted ${rfq.accepted} executed ${rfq.executed} denied ${rfq.denied}`;
}

/** " | loop p99 12.3µs max 850µs": event-loop stall by setImmediate round trips; '' when not sampled. */
function loopText(status: RuntimeStatus): string {
  const stall = status.eventLoopStall;
  if (stall === undefined) return '';
  if (stall.samples === 0) return ' | loop n/a';
  return ` | loop p99 ${microseconds(stall.p99Us)}µs max ${microseconds(stall.maxUs)}µs`;
}

/** " | pool q 0 run 1 fail 0": the worker pool's queue depth, tasks in flight and failures; '' when off. */
function poolText(status: RuntimeStatus): string {
  const workers = status.workers;
  if (workers === undefined || workers === null) return '';
  const exits = workers.workerExits === 0 ? '' : ` exits ${workers.workerExits}`;
  const risk = workers.portfolioAgeMs < 0 ? '' : ` risk age ${workers.portfolioAgeMs}ms`;
  return ` | pool q ${workers.queueDepth} run ${workers.inFlight} fail ${workers.failed}${exits}${risk}`;
}

export function statusJson(status: RuntimeStatus, elapsedSec: number): string {
  return JSON.stringify({
    event: 'status',
    elapsedSec,
    books: { synced: status.booksSynced, total: status.booksTotal },
    openOrders: status.openOrders,
    ordersSent: status.ordersSent,
    fills: status.fills,
    positions: status.positions.map((p) => ({ ticker: p.ticker, subaccount: p.subaccount, position: formatCount(asCount(p.position)), pnl: formatMicroDollars(p.pnlMicro) })),
    ...(status.positionsTotal === undefined ? {} : { positionsTotal: status.positionsTotal }),
    pnl: formatMicroDollars(status.pnlMicro),
    tickToTradeUs: { p50: status.tickToTradeUsP50, p99: status.tickToTradeUsP99, count: status.tickToTradeCount },
    ...(status.firstByte === undefined ? {} : { firstByteUs: { p50: status.firstByte.p50Us, p99: status.firstByte.p99Us, count: status.firstByte.count } }),
    denies: status.denies,
    feed: status.feedState,
    strategies: status.strategies,
    killSwitch: status.killSwitch === null ? null : { reason: status.killSwitch.reason, source: status.killSwitch.source, since: new Date(status.killSwitch.sinceMs).toISOString() },
    ...(status.eventLoopStall === undefined ? {} : { eventLoopStallUs: status.eventLoopStall }),
    ...(status.workers === undefined ? {} : { workers: status.workers }),
    ...(status.budget === undefined ? {} : { budget: status.budget }),
    ...(status.mostActive === undefined ? {} : { mostActive: status.mostActive }),
    ...(status.rfq === undefined ? {} : { rfq: status.rfq }),
  });
}

/**
 * Writes status lines: rewrites one line on a TTY, else JSON lines; `json` forces JSON lines on a
 * TTY too (`--json`). The main job draws a table on a terminal instead (status-table.ts).
 */
export class StatusPrinter {
  readonly #out: NodeJS.WriteStream;
  readonly #tty: boolean;
  #dirty = false;

  constructor(out: NodeJS.WriteStream, options: { json?: boolean } = {}) {
    this.#out = out;
    this.#tty = out.isTTY === true && options.json !== true;
  }

  print(status: RuntimeStatus, elapsedSec: number): void {
    if (this.#tty) {
      const width = this.#out.columns ?? 200;
      const text = statusText(status, elapsedSec);
      this.#out.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      this.#dirty = true;
    } else {
      this.#out.write(`${statusJson(status, elapsedSec)}\n`);
    }
  }

  /** Ends the rewritten line so what follows starts on a fresh one. */
  finish(): void {
    if (this.#dirty) this.#out.write('\n');
    this.#dirty = false;
  }

  get tty(): boolean {
    return this.#tty;
  }
}
