/**
 * What can go wrong on the wire below any protocol the routes speak: the raw HTTP/1.1 client's
 * failures, each with whether the request may have reached the peer. Routes map these onto their
 * own codes (the REST route onto ExecErrorCode). This file owns the codes and NetError only.
 */

export type NetFailure =
  | 'NET_TIMEOUT' // no response (or no free connection) within the timeout
  | 'NET_DISCONNECTED' // the connection failed, closed or reset before a full response
  | 'NET_BAD_RESPONSE' // bytes that do not frame as an HTTP/1.1 response
  | 'NET_QUEUE_FULL'; // every connection busy and the wait queue full: never written

/** Every NetFailure with its meaning; a test checks each code is documented here. */
export const NET_FAILURES: Readonly<Record<NetFailure, string>> = Object.freeze({
  NET_TIMEOUT: 'no response, or no free connection, within the timeout; a written request may have been applied',
  NET_DISCONNECTED: 'the connection failed or closed before a full response; a written request may have been applied',
  NET_BAD_RESPONSE: 'the peer sent bytes that do not frame as an HTTP/1.1 response',
  NET_QUEUE_FULL: 'every connection busy and the wait queue full: the request was never written',
});

/** A failure of a promise-returning net call (connect). */
export class NetError extends Error {
  readonly code: NetFailure;
  constructor(code: NetFailure, message: string) {
    super(message);
    this.name = 'NetError';
    this.code = code;
  }
}
