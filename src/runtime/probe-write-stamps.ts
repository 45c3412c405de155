/**
 * Splits the probe's exec hop where the request meets the kernel: the order routes publish on
 * their write-start and write channels around each socket.write (REST and Margin: the raw HTTP
 * connection; FIX: the session's socket link), and the probe stamps the timed order's first write
 * (tick-to-trade-probe.ts: the encode, write and firstByte hops). A channel's publish is a no-op
 * until something subscribes, so a probe that is not watching costs the routes nothing.
 * Owns the subscriptions only.
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { FIX_WRITE_CHANNEL, FIX_WRITE_START_CHANNEL } from '../fix/index.ts';
import { RAW_HTTP_WRITE_CHANNEL, RAW_HTTP_WRITE_START_CHANNEL } from '../net/index.ts';
import type { TickToTradeProbe } from './tick-to-trade-probe.ts';

/** Feeds the routes' writes to `probe`; returns the call that stops it (idempotent). */
export function watchRouteWrites(probe: TickToTradeProbe): () => void {
  const onStart = (): void => probe.onWriteStart();
  const onReturn = (): void => probe.onWriteReturn();
  const pairs: [string, (message: unknown) => void][] = [
    [RAW_HTTP_WRITE_START_CHANNEL, onStart],
    [FIX_WRITE_START_CHANNEL, onStart],
    [RAW_HTTP_WRITE_CHANNEL, onReturn],
    [FIX_WRITE_CHANNEL, onReturn],
  ];
  for (const [name, listener] of pairs) subscribe(name, listener);
  let watching = true;
  return () => {
    if (!watching) return;
    watching = false;
    for (const [name, listener] of pairs) unsubscribe(name, listener);
  };
}
