/**
 * Keeping the raw HTTP/1.1 connections of the order route and the quote route warm: a signed GET
 * on each socket idle longer than a bound, and its outcome as a promise (off the hot path:
 * allocation is fine).
 */

import { ExecError } from '../../oms/index.ts';
import type { NetFailure, RawExchangeHandler, RawHttpPool, RawRequestHead } from '../../net/index.ts';
import type { PresignedSignature } from './presigner.ts';
import { netFailureCode, statusErrorCode } from './transport-error.ts';
import { parseErrorBody } from './wire-parse.ts';

class WarmAnswer implements RawExchangeHandler {
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

/**
 * One signed GET of `head` on each raw socket idle longer than `minIdleMs` (0: every socket), at
 * most `maxCount`, the signatures from `signer`; resolves when every answer is in. Returns how many
 * GETs were sent.
 */
export async function warmIdleRawSockets(
  raw: RawHttpPool, head: RawRequestHead, signer: { sign(method: string, path: string, signInline: boolean): Promise<PresignedSignature> }, minIdleMs: number,
  maxCount = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  const count = Math.min(raw.idleLongerThan(minIdleMs), maxCount);
  if (count === 0) return 0;
  const signatures: Promise<PresignedSignature>[] = [];
  for (let i = 0; i < count; i++) signatures.push(signer.sign('GET', head.path, false));
  const signed = await Promise.all(signatures);
  const answers: Promise<void>[] = [];
  for (const one of signed) {
    const answer = new WarmAnswer(head.path);
    if (!raw.sendIfIdle(answer, head, one.timestampText, one.signature, null, minIdleMs)) break;
    answers.push(answer.done);
  }
  await Promise.all(answers);
  return answers.length;
}
