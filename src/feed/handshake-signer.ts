/**
 * The signed WebSocket handshake (spec/websocket.md §1.2): KALSHI-ACCESS-KEY, -TIMESTAMP (Unix ms)
 * and -SIGNATURE (RSA-PSS over `<ms>GET<path>`, the path without query) from core's request
 * signing. Signing costs about 1 ms and happens once per connect, never per frame. Owns no key
 * storage: the key object is held by the closure it returns.
 */

import type { KeyObject } from 'node:crypto';
import { loadPrivateKey, signedHeaders } from '../core/index.ts';
import type { HandshakeSigner } from './ws-session.ts';

export interface FeedAuth {
  /** API key id. */
  keyId: string;
  /** RSA private key: a KeyObject, PEM text or a path to a PEM file. */
  privateKey: KeyObject | string;
}

export function handshakeSigner(auth: FeedAuth): HandshakeSigner {
  const key = typeof auth.privateKey === 'string' ? loadPrivateKey(auth.privateKey) : auth.privateKey;
  const keyId = auth.keyId;
  return function sign(timestampMs: number, path: string): Record<string, string> {
    return signedHeaders(keyId, key, timestampMs, 'GET', path);
  };
}
