/**
 * The runtime's side of the order watchdog (order-watchdog-main.ts): a small detached process that
 * cancels every order at a real venue when the runtime dies without a clean stop (SIGKILL, the
 * OOM killer), which no handler inside the runtime can do. The runtime holds the write end of the
 * watchdog's stdin; the kernel closes it however the runtime dies, and the watchdog then sends the
 * exchange's cancel-all. A clean stop disarms it first. The REST order endpoints offer no
 * cancel-on-disconnect (FIX does: CancelOrdersOnDisconnect, 8013), so this is the REST route's.
 *
 * Owns the child's lifecycle and what it is told; the private key goes over the pipe, never to a
 * log or the command line.
 */

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';

export interface OrderWatchdogOptions {
  /** Project root (the child's working directory). */
  rootDir: string;
  /** REST base including /trade-api/v2. */
  restUrl: string;
  keyId: string;
  privateKey: KeyObject;
  /** Subaccounts to cancel in when the runtime dies (more are added with watch()). */
  subaccounts: readonly number[];
  /** The watchdog's JSON log lines (created private). */
  logPath: string;
  /** Also cancel on the Margin exchange (DELETE /margin/orders): the runtime trades it. */
  margin?: boolean;
}

export class OrderWatchdog {
  readonly pid: number;
  readonly #child: ChildProcess;
  readonly #watched = new Set<number>();

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.pid = child.pid ?? -1;
  }

  static start(options: OrderWatchdogOptions): OrderWatchdog {
    const logFd = openSync(options.logPath, 'a', 0o600);
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', join('src', 'runtime', 'order-watchdog-main.ts')], {
        cwd: options.rootDir,
        // Its own process group: the terminal's Ctrl-C or a kill of our group must not take it first.
        detached: true,
        stdio: ['pipe', 'ignore', logFd],
      });
      // It must outlive us: never keep our event loop alive for it, never wait for it.
      child.unref();
      child.on('error', () => undefined);
      child.stdin!.on('error', () => undefined);
      (child.stdin as unknown as { unref?: () => void }).unref?.();
      const watchdog = new OrderWatchdog(child);
      const privateKeyPem = options.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const cancelAllPaths = options.margin === true ? ['/portfolio/events/orders', '/margin/orders'] : ['/portfolio/events/orders'];
      watchdog.#send({ restUrl: options.restUrl, keyId: options.keyId, privateKeyPem, subaccounts: [...options.subaccounts], cancelAllPaths });
      for (const subaccount of options.subaccounts) watchdog.#watched.add(subaccount);
      return watchdog;
    } finally {
      closeSync(logFd);
    }
  }

  /** Adds subaccounts the runtime now trades in (only new ones are sent). */
  watch(subaccounts: readonly number[]): void {
    const added = subaccounts.filter((subaccount) => !this.#watched.has(subaccount));
    if (added.length === 0) return;
    for (const subaccount of added) this.#watched.add(subaccount);
    this.#send({ subaccounts: added });
  }

  /** After a clean stop (every order cancelled by the runtime itself): the watchdog exits without acting. */
  disarm(): void {
    this.#send({ disarm: true });
    this.#child.stdin?.end();
  }

  #send(message: Record<string, unknown>): void {
    const stdin = this.#child.stdin;
    if (stdin === null || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(`${JSON.stringify(message)}\n`);
  }
}
