/**
 * The raw loopback TCP floor, run as a child process of its own (like the simulator): it replays
 * the orderbook_delta texts the bench client received from the simulator, newline-delimited, at a
 * paced rate in 10 ms ticks (one write per tick, as the simulator writes one corked batch per
 * event-loop turn), and answers the client's order requests (the same HTTP/1.1 bytes it sends the
 * simulator) with the simulator's own 201 body. It measures wire-to-wire exactly as the
 * simulator's probe does (src/sim/server/probe.ts): a tick's send time is read just before its
 * write; an order's arrival time first thing in the socket's data callback; sample = arrival -
 * send time of the most recent line on the order's market. No engine, no WebSocket framing, no
 * authentication: what is left is the cost of the loopback path itself.
 *
 * Protocol: prints {"event":"ready","port","pid"} on stdout; then reads JSON commands on stdin,
 * one reply line each: load {file, responseBody}, stream {rate}, stop, probe, probe-reset, exit.
 * The client's stream connection announces itself with "STREAM\n"; any other connection is
 * order entry.
 */

import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { createHistogram, nowNs, recordNs } from '../harness.ts';
import { stringField, tickerOf } from './delta-reader.ts';

const TICK_MS = 10;
/** Skip a tick while this much is still buffered for the client (the simulator's default limit). */
const BUFFER_LIMIT_BYTES = 16 * 1024 * 1024;

let lines = Buffer.alloc(0);
let lineStart = new Int32Array(1);
let lineSlot = new Int32Array(0);
let lineCount = 0;
let nextLine = 0;
const slotOf = new Map<string, number>();
let sentNs = new Float64Array(0);
let previousSentNs = new Float64Array(0);
let isPending = new Uint8Array(0);
let response = '';

let streamSocket: Socket | null = null;
let timer: NodeJS.Timeout | null = null;
let lastTickMs = 0;
let owed = 0;
let rate = 0;
let sentLines = 0;
let skippedTicks = 0;
const wireToWire = createHistogram();
let ordersWithoutLine = 0;

function load(file: string, responseBody: string): { lines: number; bytes: number } {
  const texts = readFileSync(file, 'utf8').split('\n').filter((text) => text.startsWith('{"type":"orderbook_delta"'));
  const bodies = texts.map((text) => Buffer.from(`${text}\n`, 'utf8'));
  lines = Buffer.concat(bodies);
  lineCount = bodies.length;
  lineStart = new Int32Array(lineCount + 1);
  lineSlot = new Int32Array(lineCount);
  for (let i = 0; i < lineCount; i++) {
    lineStart[i + 1] = lineStart[i] + bodies[i].length;
    const ticker = tickerOf(texts[i]);
    let slot = slotOf.get(ticker);
    if (slot === undefined) {
      slot = slotOf.size;
      slotOf.set(ticker, slot);
    }
    lineSlot[i] = slot;
  }
  sentNs = new Float64Array(slotOf.size);
  previousSentNs = new Float64Array(slotOf.size);
  isPending = new Uint8Array(slotOf.size);
  nextLine = 0;
  const json = responseBody === '' ? '{}' : responseBody;
  response = `HTTP/1.1 201 Created\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
  return { lines: lineCount, bytes: lines.length };
}

/** Writes the next `count` lines (wrapping to the first) in one write per pass, after stamping their markets. */
function writeLines(socket: Socket, count: number): void {
  const pending: number[] = [];
  for (let k = 0, i = nextLine; k < count; k++, i = i + 1 === lineCount ? 0 : i + 1) {
    const slot = lineSlot[i];
    if (isPending[slot] === 0) {
      isPending[slot] = 1;
      pending.push(slot);
    }
  }
  const now = nowNs();
  for (const slot of pending) {
    previousSentNs[slot] = sentNs[slot];
    sentNs[slot] = now;
    isPending[slot] = 0;
  }
  let remaining = count;
  while (remaining > 0) {
    const take = Math.min(remaining, lineCount - nextLine);
    socket.write(lines.subarray(lineStart[nextLine], lineStart[nextLine + take]));
    nextLine = (nextLine + take) % lineCount;
    remaining -= take;
  }
  sentLines += count;
}

function tick(): void {
  const nowMs = performance.now();
  owed = Math.min(owed + ((nowMs - lastTickMs) * rate) / 1000, rate);
  lastTickMs = nowMs;
  const count = Math.floor(owed);
  const socket = streamSocket;
  if (count <= 0 || socket === null || lineCount === 0) return;
  if (socket.writableLength > BUFFER_LIMIT_BYTES) {
    skippedTicks++;
    return;
  }
  writeLines(socket, count);
  owed -= count;
}

function onOrders(socket: Socket, first: string): void {
  let buffered = first;
  const handle = (receivedNs: number): void => {
    for (;;) {
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.slice(0, headEnd).toLowerCase();
      const lengthAt = head.indexOf('content-length:');
      const length = lengthAt < 0 ? 0 : Number.parseInt(head.slice(lengthAt + 15).trimStart(), 10);
      const end = headEnd + 4 + length;
      if (buffered.length < end) return;
      const slot = slotOf.get(stringField(buffered.slice(headEnd + 4, end), 'ticker'));
      buffered = buffered.slice(end);
      if (slot === undefined) ordersWithoutLine++;
      else {
        let sent = sentNs[slot];
        if (sent > receivedNs) sent = previousSentNs[slot];
        if (sent === 0 || sent > receivedNs) ordersWithoutLine++;
        else recordNs(wireToWire, receivedNs - sent);
      }
      socket.write(response, 'latin1');
    }
  };
  socket.on('data', (chunk: string) => {
    const receivedNs = nowNs();
    buffered += chunk;
    handle(receivedNs);
  });
  handle(nowNs());
}

function summary(): Record<string, unknown> {
  return {
    count: wireToWire.totalCount,
    p50Ns: wireToWire.getValueAtPercentile(50),
    p99Ns: wireToWire.getValueAtPercentile(99),
    p999Ns: wireToWire.getValueAtPercentile(99.9),
    maxNs: wireToWire.maxValue,
    meanNs: Math.round(wireToWire.mean),
    ordersWithoutLine,
  };
}

const server = createServer({ noDelay: true }, (socket) => {
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  socket.once('data', (chunk: string) => {
    if (chunk.startsWith('STREAM\n')) {
      streamSocket = socket;
      socket.on('close', () => {
        if (streamSocket === socket) streamSocket = null;
      });
      return;
    }
    onOrders(socket, chunk);
  });
});

function reply(value: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function command(line: string): void {
  const cmd = JSON.parse(line) as { cmd: string; file?: string; responseBody?: string; rate?: number };
  switch (cmd.cmd) {
    case 'load':
      reply({ event: 'loaded', ...load(cmd.file ?? '', cmd.responseBody ?? '') });
      return;
    case 'stream':
      rate = cmd.rate ?? 0;
      owed = 0;
      sentLines = 0;
      skippedTicks = 0;
      lastTickMs = performance.now();
      if (timer === null) timer = setInterval(tick, TICK_MS);
      reply({ event: 'streaming', rate });
      return;
    case 'stop':
      if (timer !== null) clearInterval(timer);
      timer = null;
      reply({ event: 'stopped', sentLines, skippedTicks });
      return;
    case 'probe':
      reply(summary());
      return;
    case 'probe-reset': {
      const before = summary();
      wireToWire.reset();
      ordersWithoutLine = 0;
      reply(before);
      return;
    }
    case 'exit':
      reply({ event: 'exiting' });
      server.close();
      process.exit(0);
      return;
    default:
      reply({ event: 'error', message: `unknown command ${cmd.cmd}` });
  }
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  reply({ event: 'ready', port, pid: process.pid });
  createInterface({ input: process.stdin }).on('line', command);
});
process.on('SIGTERM', () => process.exit(0));
