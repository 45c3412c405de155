/**
 * One listening simulator: a single uWS app serving the REST API under /trade-api/v2 and the
 * WebSocket endpoint /trade-api/ws/v2 on one port, wired to one engine. Owns listen and close;
 * startSim (src/sim/index.ts) builds the services it runs on.
 */

import { loadUws, type TemplatedApp, type UsListenSocket } from '../../net/uws.ts';
import type { SimServices } from './services.ts';
import { RestServer } from './rest/rest-server.ts';
import { ALL_ROUTES } from './rest/routes/index.ts';
import { WsHub } from './ws/hub.ts';
import { WsServer } from './ws/ws-server.ts';
import { ClearingServer } from '../clearing/index.ts';

export interface SimServerOptions {
  host: string;
  port: number;
  wsBufferLimitBytes: number;
  pingIntervalMs: number;
  maxWsPayloadBytes: number;
}

export class SimServerError extends Error {
  readonly code: 'SIM_LISTEN_FAILED' = 'SIM_LISTEN_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'SimServerError';
  }
}

export class SimServer {
  readonly hub: WsHub;
  readonly #services: SimServices;
  readonly #rest: RestServer;
  readonly #ws: WsServer;
  readonly #app: TemplatedApp;
  #listenSocket: UsListenSocket | null = null;
  #detachEngine: (() => void) | null = null;
  #detachFaults: (() => void) | null = null;
  port = 0;

  constructor(services: SimServices, options: SimServerOptions) {
    const uws = loadUws();
    this.#services = services;
    this.hub = new WsHub({ engine: services.engine, faults: services.faults, logger: services.logger, bufferLimitBytes: options.wsBufferLimitBytes, probe: services.probe });
    this.hub.attachMargin(services.margin, services.marginOrderGroups); // the Margin endpoint's channels
    this.#rest = new RestServer(services, ALL_ROUTES);
    this.#ws = new WsServer({
      hub: this.hub,
      authenticator: services.authenticator,
      now: services.now,
      logger: services.logger,
      pingIntervalMs: options.pingIntervalMs,
      maxPayloadBytes: options.maxWsPayloadBytes,
    });
    this.#app = uws.App();
    this.#ws.attach(this.#app, uws.DISABLED); // before the catch-all REST route
    new ClearingServer(services).attach(this.#app); // its own base path, before the catch-all REST route
    this.#rest.attach(this.#app);
  }

  /** Listens on host:port (0 = any free port); resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    const uws = loadUws();
    return new Promise((resolve, reject) => {
      this.#app.listen(host, port, (socket) => {
        if (socket === false) {
          reject(new SimServerError(`could not listen on ${host}:${port}`));
          return;
        }
        this.#listenSocket = socket;
        this.port = uws.us_socket_local_port(socket as unknown as Parameters<typeof uws.us_socket_local_port>[0]);
        this.#detachEngine = this.#services.engine.subscribe(this.hub);
        this.#detachFaults = this.#services.faults.attachWs(this.hub);
        resolve(this.port);
      });
    });
  }

  close(): void {
    const uws = loadUws();
    this.#detachEngine?.();
    this.#detachEngine = null;
    this.#detachFaults?.();
    this.#detachFaults = null;
    this.#ws.close();
    this.#rest.close();
    if (this.#listenSocket !== null) uws.us_listen_socket_close(this.#listenSocket);
    this.#listenSocket = null;
  }
}
