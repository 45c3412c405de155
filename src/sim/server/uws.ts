/**
 * The one import point of uWebSockets.js for the simulator. The package is CommonJS and, when its
 * native binary does not match the running Node, silently falls back to a slow pure-JS server;
 * a simulator that quietly runs on the fallback would make every throughput figure a lie, so this
 * file refuses to start unless the native App is loaded. It never configures routes.
 */

import { createRequire } from 'node:module';
import type * as UwsTypes from '@trufflesuite/uws-js-unofficial';

export type TemplatedApp = UwsTypes.TemplatedApp;
export type HttpResponse = UwsTypes.HttpResponse;
export type HttpRequest = UwsTypes.HttpRequest;
export type WebSocket<UserData> = UwsTypes.WebSocket<UserData>;
export type UsListenSocket = UwsTypes.us_listen_socket;
export type UsSocketContext = UwsTypes.us_socket_context_t;

export class UwsNotNativeError extends Error {
  readonly code: 'SIM_UWS_NOT_NATIVE' = 'SIM_UWS_NOT_NATIVE';
  constructor(detail: string) {
    super(`uWebSockets.js native binary did not load (${detail}); refusing the slow JS fallback`);
    this.name = 'UwsNotNativeError';
  }
}

const require = createRequire(import.meta.url);
let loaded: typeof UwsTypes | null = null;

/** Loads uWS once and asserts that `App` is the native function. Throws UwsNotNativeError otherwise. */
export function loadUws(): typeof UwsTypes {
  if (loaded !== null) return loaded;
  if (process.env.UWS_USE_FALLBACK !== undefined && process.env.UWS_USE_FALLBACK !== '' && process.env.UWS_USE_FALLBACK !== '0') {
    throw new UwsNotNativeError('UWS_USE_FALLBACK is set');
  }
  const uws = require('@trufflesuite/uws-js-unofficial') as typeof UwsTypes;
  if (typeof uws.App !== 'function' || !Function.prototype.toString.call(uws.App).includes('[native code]')) {
    throw new UwsNotNativeError(`no native binary for ${process.platform}-${process.arch} ABI ${process.versions.modules}`);
  }
  loaded = uws;
  return uws;
}
