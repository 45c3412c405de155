/**
 * The one import point of uWebSockets.js, for the simulator, the runtime's dashboard, and the
 * tests and benches that run a WebSocket server of their own. uWS.js is a native addon built per Node ABI, and no single
 * registry package carries a binary for every supported Node that loads on every glibc (README,
 * Dependencies), so the distribution is chosen by the running Node's ABI:
 *
 *   ABI 115 (Node 20)       @trufflesuite/uws-js-unofficial 20.30: binary needs glibc 2.27+
 *   ABI 127, 137 (22, 24)   @btc-vision/uwebsockets.js 20.57: binaries need glibc 2.38+
 *
 * The first silently falls back to a slow pure-JS server when its binary does not load; the second
 * throws. A simulator on the fallback would make every throughput figure a lie, so this file
 * refuses to start unless `App` is native code, and turns a binary that did not load into one
 * coded error naming the ABI and the reason. It never configures routes.
 */

import { createRequire } from 'node:module';
import type * as UwsTypes from '@btc-vision/uwebsockets.js';

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

/** Loads uWS once and asserts that `App` is the native function. Throws UwsNotNativeError otherwise. */
export function loadUws(): typeof UwsTypes {
  if (loaded !== null) return loaded;
  const name = uwsPackage();
  const target = `${name} on ${process.platform}-${process.arch}, Node ${process.versions.node} ABI ${process.versions.modules}`;
  if (name === '@trufflesuite/uws-js-unofficial' && process.env.UWS_USE_FALLBACK !== undefined && process.env.UWS_USE_FALLBACK !== '' && process.env.UWS_USE_FALLBACK !== '0') {
    throw new UwsNotNativeError(`${target}: UWS_USE_FALLBACK is set`);
  }
  let uws: typeof UwsTypes;
  try {
    process.env.UWS_HTTP_MAX_HEADERS_SIZE = String(UWS_HTTP_HEAD_BYTES_MAX);
    uws = require(name) as typeof UwsTypes;
  } catch (error) {
    // The package's message is a banner, then the loader's reason (e.g. "GLIBC_2.38' not found").
    const lines = (error instanceof Error ? error.message : String(error)).split('\n').filter((line) => line.trim() !== '');
    const reason = lines[lines.length - 1] ?? 'unknown';
    const hint = reason.includes('GLIBC_') ? ' (Node 22 and 24 need glibc 2.38 or newer: Debian 13, Ubuntu 24.04; on an older glibc use Node 20)' : '';
    throw new UwsNotNativeError(`${target}: ${reason}${hint}`);
  }
  if (typeof uws.App !== 'function' || !Function.prototype.toString.call(uws.App).includes('[native code]')) {
    throw new UwsNotNativeError(`${target}: no native binary, App is the JavaScript fallback`);
  }
  loaded = uws;
  return uws;
}
