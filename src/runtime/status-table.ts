/**
 * The main job's live status on a terminal: a compact table redrawn in place once a second (books,
 * orders, fills, positions and PnL per strategy, tick-to-trade, denies by code, feed and session
 * states, event-loop stall, worker pool, write budget and held intents, most active markets, RFQ
 * counters). At any number of markets its height is bounded: the top TOP_ROWS positions by |PnL|
 * and a count of the rest, never a row per market. `renderStatusTable` is a pure function of a
 * RuntimeStatus, the strategies' subaccounts and sessions (what status() does not carry yet) and
 * a width, so tests check it line by line; `StatusTablePrinter` only moves the cursor (ANSI CSI
 * sequences, no dependency) and writes. Pipes and `--json` get JSON lines (status-line.ts).
 * Never reads the runtime itself and never runs on the hot path.
 */

import { asCount, formatCount } from '../core/index.ts';
import type { PositionLine, RuntimeStatus } from './runtime.ts';
import type { RfqStatus } from './rfq-status.ts';
import { TOP_ROWS, topPositions } from './scale-status.ts';
import { formatMicroDollars } from './status-line.ts';

export interface StatusTableView {
  /** Seconds since trading started. */
  elapsedSec: number;
  /** Terminal columns; every line is cut to fit. */
  widthColumns: number;
  /** Each strategy's subaccount (config): positions are per subaccount, so strategies sharing one share its rows. */
  strategySubaccounts: Readonly<Record<string, number>>;
  /** Sessions beside the WebSocket feed (FIX order entry, FIX market data), with their states. */
  sessions: readonly { name: string; state: string }[];
}

/** What the table needs beside RuntimeStatus and the width. */
export type StatusTableContext = Omit<StatusTableView, 'elapsedSec' | 'widthColumns'>;

/** Position rows shown at most; the rest are counted on one line, so the table keeps a bounded height. */
export const POSITION_ROWS_MAX = 12;
const WIDTH_MIN = 20;

function microseconds(us: number): string {
  return us >= 100 ? `${us.toFixed(0)}µs` : `${us.toFixed(1)}µs`;
}

function signedCount(position: number): string {
  return `${position > 0 ? '+' : ''}${formatCount(asCount(position))}`;
}

/** Cuts a line to `width` columns (one column per UTF-16 unit: the table uses no wide characters). */
function fit(line: string, width: number): string {
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** The table's lines, top to bottom, each at most `view.widthColumns` long. */
export function renderStatusTable(status: RuntimeStatus, view: StatusTableView): string[] {
  const width = Math.max(WIDTH_MIN, Math.floor(view.widthColumns));
  const lines: string[] = [];
  const kill = status.killSwitch === null ? '' : `  *** KILL SWITCH (${status.killSwitch.source}: ${status.killSwitch.reason}) ***`;
  lines.push(`trading ${view.elapsedSec}s  books synced ${status.booksSynced}/${status.booksTotal}  feed ${status.feedState}${kill}`);
  lines.push('─'.repeat(Math.min(width, 78)));
  lines.push(`orders    open ${status.openOrders}  sent ${status.ordersSent}  fills ${status.fills}  PnL ${formatMicroDollars(status.pnlMicro)}`);
  const t2t = status.tickToTradeCount === 0 ? 'n/a' : `p50 ${microseconds(status.tickToTradeUsP50)}  p99 ${microseconds(status.tickToTradeUsP99)}  (${status.tickToTradeCount} orders)`;
  lines.push(`t2t       ${t2t}`);
  const first = status.firstByte;
  if (first !== undefined && first.count > 0) lines.push(`  first byte p50 ${microseconds(first.p50Us)}  p99 ${microseconds(first.p99Us)}  (frame received -> handed to socket.write)`);
  const denies = Object.entries(status.denies);
  lines.push(`denies    ${denies.length === 0 ? 'none' : denies.map(([name, count]) => `${name} ${count}`).join('  ')}`);
  const sessions = [`feed ${status.feedState}`, ...view.sessions.map((session) => `${session.name} ${session.state}`)];
  lines.push(`sessions  ${sessions.join('  ')}`);
  lines.push(`loop      ${stallText(status)}`);
  lines.push(`workers   ${workersText(status)}`);
  lines.push(`budget    ${budgetText(status)}`);
  lines.push(`active    ${activeText(status)}`);
  if (status.rfq !== undefined && status.rfq !== null) lines.push(`rfq       ${rfqText(status.rfq)}`);
  lines.push('');
  lines.push(...strategyRows(status, view));
  return lines.map((line) => fit(line, width));
}

function stallText(status: RuntimeStatus): string {
  const stall = status.eventLoopStall;
  if (stall === undefined || stall.samples === 0) return 'stall n/a';
  return `stall p50 ${microseconds(stall.p50Us)}  p99 ${microseconds(stall.p99Us)}  max ${microseconds(stall.maxUs)}`;
}

function workersText(status: RuntimeStatus): string {
  const workers = status.workers;
  if (workers === undefined || workers === null) return 'off';
  const risk = workers.portfolioAgeMs < 0 ? '' : `  risk age ${workers.portfolioAgeMs}ms`;
  const exits = workers.workerExits === 0 ? '' : `  exits ${workers.workerExits}`;
  return `queue ${workers.queueDepth}  running ${workers.inFlight}  done ${workers.completed}  failed ${workers.failed}${exits}${risk}`;
}

function budgetText(status: RuntimeStatus): string {
  const b = status.budget;
  if (b === undefined) return 'n/a';
  return `tokens ${b.writeTokens}/${b.writeCapacity}  spent ${b.writeSpentPerSecond}/s of ${b.writePerSecond}/s  held ${b.held}  sent ${b.heldSent}  dropped ${b.heldDropped}  batches ${b.batchesSent} (${b.batchedOrders} orders)`;
}

/** The most active books, changes per second (status() keeps the top TOP_ROWS). */
function activeText(status: RuntimeStatus): string {
  const active = status.mostActive;
  if (active === undefined || active.length === 0) return 'quiet';
  return active.map((market) => `${market.ticker} ${market.changesPerSecond}/s`).join('  ');
}

function rfqText(rfq: RfqStatus): string {
  return `seen ${rfq.rfqsSeen}  quoted ${rfq.quotesSent}  accepted ${rfq.accepted}  executed ${rfq.executed}  denied ${rfq.denied}  rejected ${rfq.quotesRejected}  open ${rfq.open}`;
}

const COLUMNS = { strategy: 14, status: 10, subaccount: 4, ticker: 26, position: 10 } as const;

function row(strategy: string, status: string, subaccount: string, ticker: string, position: string, pnl: string): string {
  return `${pad(strategy, COLUMNS.strategy)} ${pad(status, COLUMNS.status)} ${pad(subaccount, COLUMNS.subaccount)} ${pad(ticker, COLUMNS.ticker)} ${pad(position, COLUMNS.position)} ${pnl}`;
}

/**
 * One row per (strategy, position of its subaccount), a "flat" row for a strategy without one,
 * and positions in subaccounts no strategy runs in (a manual order, a removed strategy) under "-".
 */
function strategyRows(status: RuntimeStatus, view: StatusTableView): string[] {
  const out = [row('strategy', 'status', 'sub', 'market', 'position', 'PnL')];
  const bySubaccount = new Map<number, PositionLine[]>();
  // At most TOP_ROWS positions, the largest |PnL| (status() already ranks and cuts them).
  const shown = status.positions.length > TOP_ROWS ? topPositions(status.positions, TOP_ROWS) : status.positions;
  for (const position of shown) {
    const list = bySubaccount.get(position.subaccount);
    if (list === undefined) bySubaccount.set(position.subaccount, [position]);
    else list.push(position);
  }
  const claimed = new Set<number>();
  const body: string[] = [];
  for (const strategy of status.strategies) {
    const subaccount = view.strategySubaccounts[strategy.id];
    const positions = subaccount === undefined ? [] : (bySubaccount.get(subaccount) ?? []);
    if (subaccount !== undefined) claimed.add(subaccount);
    const subaccountText = subaccount === undefined ? '?' : String(subaccount);
    if (positions.length === 0) body.push(row(strategy.id, strategy.status, subaccountText, '-', 'flat', formatMicroDollars(0)));
    for (const position of positions) body.push(row(strategy.id, strategy.status, subaccountText, position.ticker, signedCount(position.position), formatMicroDollars(position.pnlMicro)));
  }
  for (const [subaccount, positions] of bySubaccount) {
    if (claimed.has(subaccount)) continue;
    for (const position of positions) body.push(row('-', '-', String(subaccount), position.ticker, signedCount(position.position), formatMicroDollars(position.pnlMicro)));
  }
  if (body.length === 0) body.push(row('-', '-', '-', '-', 'flat', formatMicroDollars(0)));
  if (body.length > POSITION_ROWS_MAX) {
    const hidden = body.length - (POSITION_ROWS_MAX - 1);
    body.length = POSITION_ROWS_MAX - 1;
    body.push(`… ${hidden} more rows (JSON: npm start -- --json)`);
  }
  const positionsHidden = Math.max(status.positionsTotal ?? 0, status.positions.length) - shown.length;
  if (positionsHidden > 0) body.push(`… and ${positionsHidden} more positions (top ${TOP_ROWS} by |PnL| shown)`);
  out.push(...body);
  return out;
}

/** Cursor up `n` lines to column 1 (CSI n A, then CR); erase the line (CSI 2 K); erase below (CSI J). */
const CURSOR_UP = (n: number): string => `\x1b[${n}A\r`;
const ERASE_LINE = '\x1b[2K';
const ERASE_BELOW = '\x1b[J';

/**
 * Draws the table, then on each print moves the cursor back to its first line and draws over it
 * (one write per redraw, so a terminal never shows half a table). A shorter table erases what the
 * longer one left below it.
 */
export class StatusTablePrinter {
  readonly #out: NodeJS.WriteStream;
  readonly #context: () => StatusTableContext;
  #linesDrawn = 0;

  /** `context` is read at each print: a SIGHUP reload changes the strategies, a session changes state. */
  constructor(out: NodeJS.WriteStream, context: () => StatusTableContext) {
    this.#out = out;
    this.#context = context;
  }

  print(status: RuntimeStatus, elapsedSec: number): void {
    // One column short of the edge: a line exactly as wide as the terminal wraps on some terminals.
    // A pseudo-terminal nobody sized reports 0 columns: then assume 100.
    const columns = this.#out.columns ?? 0;
    const widthColumns = (columns > 0 ? columns : 100) - 1;
    const lines = renderStatusTable(status, { ...this.#context(), elapsedSec, widthColumns });
    let text = this.#linesDrawn > 0 ? CURSOR_UP(this.#linesDrawn) : '';
    for (const line of lines) text += `${ERASE_LINE}${line}\n`;
    this.#out.write(text + ERASE_BELOW);
    this.#linesDrawn = lines.length;
  }

  /** The cursor already sits below the table; what follows starts there. */
  finish(): void {
    this.#linesDrawn = 0;
  }
}
