/**
 * The capture bench's baseline: the floor of receiving. A plain `ws` client in a process of its
 * own opens one signed connection to the simulator and subscribes what `npm run capture --
 * --all-open` subscribes (orderbook_delta for the given markets, 2,000 a subscription as the feed
 * does; trade, ticker and market_lifecycle_v2 for all), then only counts: frames, bytes, and, by a
 * byte scan of each frame (envelope.ts, no JSON.parse), sequence gaps per sid and the receive lag
 * against ts_ms. No book, no recorder, no file. bench/child-process.ts's protocol:
 *
 *   ready line:  {"event":"ready", pid}  once the socket is open and the subscribes are sent
 *   commands:    {"cmd":"stats"} -> {"event":"stats", frames, bytes, gaps, sequenced, lagSamples,
 *                lagMsP50, lagMsP99, errors, closed, atMs}   (cumulative since ready)
 *                {"cmd":"reset"} -> the same, then the counters start again from 0
 *
 *   node --import tsx bench/capture/baseline-child.ts <ws url> <key id> <key file> <tickers file>
 */

import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { loadPrivateKey, signedHeaders } from '../../src/core/index.ts';
import { LagHistogram, SequenceGaps, scanEnvelope, type Envelope } from './envelope.ts';

/** Markets per orderbook_delta subscription: the feed's own default (src/feed/subscriptions.ts). */
const MARKETS_PER_SUBSCRIPTION = 2_000;
const OPEN_TIMEOUT_MS = 30_000;

class Counters {
  frames = 0;
  bytes = 0;
  errors = 0;
  gaps = new SequenceGaps();
  lag = new LagHistogram();
}

let counters = new Counters();
let closed = false;
const envelope: Envelope = { sid: -1, seq: -1, tsMs: -1 };

function onFrame(data: Buffer): void {
  const nowMs = Date.now();
  counters.frames++;
  counters.bytes += data.length;
  scanEnvelope(data, envelope);
  counters.gaps.offer(envelope.sid, envelope.seq);
  if (envelope.tsMs > 0) counters.lag.record(nowMs - envelope.tsMs);
  // An error frame (e.g. 25, buffer overflow: the server ended a subscription) is a loss.
  if (data.length < 200 && data.includes('"type":"error"')) counters.errors++;
}

function stats(): Record<string, unknown> {
  return {
    event: 'stats', frames: counters.frames, bytes: counters.bytes, gaps: counters.gaps.gaps, sequenced: counters.gaps.sequenced,
    lagSamples: counters.lag.count, lagMsP50: counters.lag.quantile(0.5), lagMsP99: counters.lag.quantile(0.99), errors: counters.errors, closed, atMs: Date.now(),
  };
}

async function main(): Promise<void> {
  const [wsUrl, keyId, keyFile, tickersFile] = process.argv.slice(2);
  if (wsUrl === undefined || keyId === undefined || keyFile === undefined || tickersFile === undefined) throw new Error('usage: baseline-child.ts <ws url> <key id> <key file> <tickers file>');
  const tickers = JSON.parse(readFileSync(tickersFile, 'utf8')) as string[];
  const url = new URL(wsUrl);
  const headers = signedHeaders(keyId, loadPrivateKey(keyFile), Date.now(), 'GET', url.pathname);
  const socket = new WebSocket(wsUrl, { headers, perMessageDeflate: false });
  socket.on('message', (data: Buffer) => onFrame(data));
  socket.on('close', () => {
    closed = true;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baseline: no open in ${OPEN_TIMEOUT_MS} ms`)), OPEN_TIMEOUT_MS);
    socket.once('open', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  let id = 1;
  const send = (params: Record<string, unknown>): void => socket.send(JSON.stringify({ id: id++, cmd: 'subscribe', params }));
  for (let at = 0; at < tickers.length; at += MARKETS_PER_SUBSCRIPTION) send({ channels: ['orderbook_delta'], market_tickers: tickers.slice(at, at + MARKETS_PER_SUBSCRIPTION) });
  for (const channel of ['trade', 'ticker', 'market_lifecycle_v2']) send({ channels: [channel] });
  process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('close', () => process.exit(0)); // the parent is gone
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const command = JSON.parse(line) as { cmd: string };
    process.stdout.write(`${JSON.stringify(command.cmd === 'stats' || command.cmd === 'reset' ? stats() : { event: 'error', message: `unknown command ${command.cmd}` })}\n`);
    if (command.cmd === 'reset') counters = new Counters();
  }
}

process.on('SIGTERM', () => process.exit(0));
main().catch((error: unknown) => {
  process.stderr.write(`bench capture baseline: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
