// Child of bench/ws-client/suite.ts: a uWebSockets.js server (the simulator's server library) that
// sends every connected client one orderbook_delta-sized text frame every `gapMs` (argv[2]),
// carrying its CLOCK_MONOTONIC send time in ns ("t"), comparable across processes on one machine.
// Prints {"port":N} once listening; stopped by a signal (bench/child-process.ts) or when stdin closes.
import { loadUws } from '../../src/net/uws.ts';
const uws = loadUws();
const gapMs = Number(process.argv[2] ?? 10);
const pad = 'x'.repeat(160);
const sockets = new Set();
uws
  .App()
  .ws('/*', { open: (ws) => sockets.add(ws), close: (ws) => sockets.delete(ws) })
  .listen('127.0.0.1', 0, (token) => {
    if (!token) process.exit(1);
    process.stdout.write(`${JSON.stringify({ port: uws.us_socket_local_port(token) })}\n`);
  });
const timer = setInterval(() => {
  const text = `{"type":"orderbook_delta","sid":1,"seq":1,"t":${process.hrtime.bigint()},"msg":{"p":"${pad}"}}`;
  for (const ws of sockets) ws.send(text, false);
}, gapMs);
process.stdin.resume();
process.stdin.on('end', () => {
  clearInterval(timer);
  process.exit(0);
});
