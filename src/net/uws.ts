/**
 * The one import point of uWebSockets.js, for the simulator, the runtime's dashboard, and the
 * tests and benches that run a WebSocket server of their own. uWS.js is a native addon built per Node ABI, and no single
 * registry package carries a binary for every supported Node that loads on every glibc (README,
 * Dependencies), so the distribution is chosen by the running Node's ABI:
 *
 *   ABI 115 (Node 20)       @trufflesuite/uws-js-unofficial 20.30: binary needs glibc 2.27+
 *   ABI 127, 137 (22, 24)   @btc-vision/uwebsockets.js 20.57: binaries need glibc 2.38+
 *
 * The first silently falls back to its own pure-JS server when its binary does not load; the second
 * throws. That JS server has no custom `upgrade` handler (the simulator's and dashboard's
 * WebSocket auth), so it is never used. Where the binary cannot load (Node 22/24 on glibc < 2.38),
 * loadUws() returns this project's fallback instead (uws-fallback.ts: node:http + `ws`, the same API
 * subset, slower) and uwsFlavor()/uwsFallbackReason() say so, for the start-up lines to announce.
 * UWS_FORCE_FALLBACK=1 chooses the fallback even where the binary loads (tests, measuring it).
 * It never configures routes.
 */

import { createRequire } from 'node:module';
import type * as UwsTypes from '@btc-vision/uwebsockets.js';
import { createFallbackUws } from './uws-fallback.ts';

export type TemplatedApp = UwsTypes.TemplatedApp;
export type HttpResponse = UwsTypes.HttpResponse;
export type HttpRequest = UwsTypes.HttpRequest;
export type WebSocket<UserData> = UwsTypes.WebSocket<UserData>;
export type UsListenSocket = UwsTypes.us_listen_socket;
export type UsSocketContext = UwsTypes.us_socket_context_t;

export class UwsNotNativeError extends Error {
  readonly code: 'SIM_UWS_NOT_NATIVE' = 'SIM_UWS_NOT_NATIVE';
  constructor(detail: string) {
    super(`uWebSockets.js native binary did not load (${detail}); refusing to run without it`);
    this.name = 'UwsNotNativeError';
  }
}

/** Distribution per Node ABI (`process.versions.modules`); any other ABI uses UWS_PACKAGE_DEFAULT. */
export const UWS_PACKAGE_BY_ABI: Readonly<Record<string, string>> = {
  '115': '@trufflesuite/uws-js-unofficial',
};
export const UWS_PACKAGE_DEFAULT = '@btc-vision/uwebsockets.js';

/** The uWS.js package this Node loads. */
export function uwsPackage(abi: string = process.versions.modules): string {
  return Object.hasOwn(UWS_PACKAGE_BY_ABI, abi) ? UWS_PACKAGE_BY_ABI[abi]! : UWS_PACKAGE_DEFAULT;
}

/**
 * Longest request head (request line and headers) uWS accepts, bytes. uWS.js 20.57 reads it from
 * UWS_HTTP_MAX_HEADERS_SIZE once, when the addon loads, defaults to 4 KiB and answers 431 above
 * it; 20.30 has no such setting and took heads past 100 KiB. The simulator must see every request
 * up to its own bounds (a 32 KiB query, src/sim/server/rest/bounds.ts) to answer them with the
 * exchange's 400, so: that query, its path and the signed headers, with room to spare.
 */
export const UWS_HTTP_HEAD_BYTES_MAX = 64 * 1024;

const require = createRequire(import.meta.url);
let loaded: typeof UwsTypes | null = null;
let flavor: 'native' | 'fallback' = 'native';
let fallbackReason: string | null = null;

/**
 * Loads uWS once: the native addon when its binary loads (and `App` is native code), else the
 * fallback (uws-fallback.ts), with the reason kept for uwsFallbackReason(). Throws
 * UwsNotNativeError only when UWS_USE_FALLBACK asks for the uWS package's own JS server.
 */
export function loadUws(): typeof UwsTypes {
  if (loaded !== null) return loaded;
  const name = uwsPackage();
  const target = `${name} on ${process.platform}-${process.arch}, Node ${process.versions.node} ABI ${process.versions.modules}`;
  if (name === '@trufflesuite/uws-js-unofficial' && isSet(process.env.UWS_USE_FALLBACK)) {
    throw new UwsNotNativeError(`${target}: UWS_USE_FALLBACK is set (its JavaScript server is not supported; UWS_FORCE_FALLBACK=1 selects this project's fallback)`);
  }
  const reason = isSet(process.env.UWS_FORCE_FALLBACK) ? 'UWS_FORCE_FALLBACK is set' : nativeLoadFailure(name, target);
  if (reason !== null) {
    flavor = 'fallback';
    fallbackReason = reason;
    loaded = createFallbackUws({ headBytesMax: UWS_HTTP_HEAD_BYTES_MAX }) as unknown as typeof UwsTypes;
  }
  return loaded!;
}

/** 'native' (uWebSockets.js) or 'fallback' (node:http + ws, uws-fallback.ts); loads uWS first. */
export function uwsFlavor(): 'native' | 'fallback' {
  loadUws();
  return flavor;
}

/** Why the fallback runs (null on native uWS), e.g. "uWebSockets.js needs glibc 2.38 (this machine: 2.36): ...". */
export function uwsFallbackReason(): string | null {
  loadUws();
  return fallbackReason;
}

/** One line for start-up logs when the fallback runs, else null. */
export function uwsFallbackNotice(): string | null {
  const reason = uwsFallbackReason();
  return reason === null ? null : `${reason}; running the server on node:http + ws, slower: see README (Dependencies)`;
}

/** Loads the native addon into `loaded`; null on success, else the reason it cannot run. */
function nativeLoadFailure(name: string, target: string): string | null {
  let uws: typeof UwsTypes;
  try {
    process.env.UWS_HTTP_MAX_HEADERS_SIZE = String(UWS_HTTP_HEAD_BYTES_MAX);
    uws = require(name) as typeof UwsTypes;
  } catch (error) {
    // The package's message is a banner, then the loader's reason (e.g. "GLIBC_2.38' not found").
    const lines = (error instanceof Error ? error.message : String(error)).split('\n').filter((line) => line.trim() !== '');
    const reason = lines[lines.length - 1] ?? 'unknown';
    if (/GLIBC_2\.\d+|__isoc23_|arc4random/.test(reason)) {
      const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
      return `uWebSockets.js needs glibc 2.38 (this machine: ${glibc ?? 'older'}; ${target}: ${reason})`;
    }
    return `uWebSockets.js native binary did not load (${target}: ${reason})`;
  }
  if (typeof uws.App !== 'function' || !Function.prototype.toString.call(uws.App).includes('[native code]')) {
    return `uWebSockets.js native binary did not load (${target}: App is the package's JavaScript server)`;
  }
  loaded = uws;
  return null;
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0';
}
