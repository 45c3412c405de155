/**
 * The rfq suite's baseline: a maker written the way a user of the exchange's official TypeScript
 * client (kalshi-typescript) would write one. An undici WebSocket (signed handshake, as the venue
 * asks) subscribed to `communications`; each message JSON.parse'd; on rfq_created, a two-sided
 * quote from a fixed mid (0.50, edge 0.02: YES bid 0.48, NO bid 0.48, the same quote the rfq-maker
 * plugin makes from the suite's 0.45 / 0.55 book) sent with CommunicationsApi.createQuote, the
 * client signing the request itself (its Configuration holds the PEM, as test/sim/server/rfq.test.ts
 * configures it). No size limits, no open-quote bookkeeping: the least a user would write.
 * Measures nothing; counts answers.
 */

import { createRequire } from 'node:module';
import { CommunicationsApi, Configuration } from 'kalshi-typescript';
import { WebSocket } from 'undici';
import { loadPrivateKey, signedHeaders } from '../../src/core/index.ts';

// The axios the official client itself loads (its dependency, not ours), as the simulator's test does.
const clientRequire = createRequire(createRequire(import.meta.url).resolve('kalshi-typescript'));
const axios = clientRequire('axios') as { create(): never };

export interface OfficialMakerOptions {
  restUrl: string; // with /trade-api/v2
  wsUrl: string;
  keyId: string;
  privateKeyPem: string;
}

export interface OfficialMaker {
  readonly stats: { rfqs: number; quotesSent: number; quotesCreated: number; quotesFailed: number; lastError: string };
  stop(): Promise<void>;
}

const MID = 0.5;
const EDGE = 0.02;

export async function startOfficialMaker(options: OfficialMakerOptions): Promise<OfficialMaker> {
  const api = new CommunicationsApi(
    new Configuration({ basePath: options.restUrl, apiKey: options.keyId, privateKeyPem: options.privateKeyPem }),
    undefined,
    axios.create(),
  );
  const stats = { rfqs: 0, quotesSent: 0, quotesCreated: 0, quotesFailed: 0, lastError: '' };
  const wsPath = new URL(options.wsUrl).pathname;
  const headers = signedHeaders(options.keyId, loadPrivateKey(options.privateKeyPem), Date.now(), 'GET', wsPath);
  const ws = new WebSocket(options.wsUrl, { headers });
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (event) => reject(new Error(`official maker: WebSocket failed: ${String((event as { message?: string }).message ?? 'error')}`));
  });
  const subscribed = new Promise<void>((resolve) => {
    ws.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as { type?: string; msg?: { id?: string } };
      if (message.type === 'subscribed') {
        resolve();
        return;
      }
      if (message.type !== 'rfq_created' || typeof message.msg?.id !== 'string') return;
      stats.rfqs++;
      stats.quotesSent++;
      api.createQuote({
        rfq_id: message.msg.id,
        yes_bid: (MID - EDGE).toFixed(4),
        no_bid: (1 - (MID + EDGE)).toFixed(4),
        rest_remainder: false,
        post_only: true,
        subaccount: 0,
      }).then(
        () => { stats.quotesCreated++; },
        (error: unknown) => {
          stats.quotesFailed++;
          const response = (error as { response?: { status?: number; data?: unknown } }).response;
          stats.lastError = response === undefined ? String(error) : `${response.status} ${JSON.stringify(response.data).slice(0, 200)}`;
        },
      );
    };
  });
  ws.send(JSON.stringify({ id: 1, cmd: 'subscribe', params: { channels: ['communications'] } }));
  await Promise.race([subscribed, new Promise((_, reject) => setTimeout(() => reject(new Error('official maker: no subscribed answer in 5 s')), 5_000).unref())]);
  return {
    stats,
    stop: async () => {
      ws.onmessage = null;
      const closed = new Promise<void>((resolve) => { ws.onclose = () => resolve(); });
      ws.close();
      await Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}
