/**
 * The outcome of one raw keep-warm GET as a promise, for the raw HTTP/1.1 connections of the order
 * route and the quote route (off the hot path: allocation is fine).
 */

import { ExecError } from '../../oms/index.ts';
import type { NetFailure, RawExchangeHandler } from '../../net/index.ts';
import { netFailureCode, statusErrorCode } from './transport-error.ts';
import { parseErrorBody } from './wire-parse.ts';

export class WarmAnswer implements RawExchangeHandler {
  readonly done: Promise<void>;
  #resolve!: () => void;
  #reject!: (error: Error) => void;
  readonly #path: string;
  constructor(path: string) {
    this.#path = path;
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }
  onRawResponse(status: number, body: Buffer, bodyLength: number): void {
    if (status >= 200 && status < 300) return this.#resolve();
    const reject = parseErrorBody(status, body.toString('utf8', 0, bodyLength));
    this.#reject(new ExecError(statusErrorCode(status), `GET ${this.#path}: HTTP ${status} ${reject.code}`, status, reject));
  }
  onRawFailure(failure: NetFailure): void {
    const code = netFailureCode(failure);
    this.#reject(new ExecError(code, `GET ${this.#path}: ${code}`));
  }
}
