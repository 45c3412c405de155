/**
 * REST replies and the exchange's error body shapes (spec/rest.md §2). Four shapes exist on the
 * wire and each has its builder here:
 *
 *   nested   {"error":{"code","message","details"?}}   most 4xx/5xx (never a `service` field)
 *   flat     {"code","message","details"?}              body decode failures (bad_request,
 *                                                       invalid_content_type, payload_too_large)
 *   msg      {"msg":"..."}                              query validation (limit above maximum)
 *   429      {"error":"too many requests"}
 *
 * `RestError` carries a finished reply out of deep validation code to the dispatcher, which
 * sends it; it is thrown only off the hot path (request decoding). This file never writes sockets.
 */

import type { SimError } from '../../engine/index.ts';

export interface RestReply {
  status: number;
  /** JSON text, or null for an empty body (204). */
  body: string | null;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  410: '410 Gone',
  413: '413 Payload Too Large',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

export function statusLine(status: number): string {
  return STATUS_TEXT[status] ?? `${status} Status`;
}

export function jsonReply(status: number, value: unknown): RestReply {
  return { status, body: JSON.stringify(value) };
}

export function emptyReply(status: number): RestReply {
  return { status, body: null };
}

export function nestedError(status: number, code: string, message: string, details?: string): RestReply {
  const error: Record<string, string> = { code, message };
  if (details !== undefined && details !== '') error.details = details;
  return { status, body: JSON.stringify({ error }) };
}

export function flatError(status: number, code: string, message: string, details?: string): RestReply {
  const error: Record<string, string> = { code, message };
  if (details !== undefined && details !== '') error.details = details;
  return { status, body: JSON.stringify(error) };
}

export function msgError(message: string): RestReply {
  return { status: 400, body: JSON.stringify({ msg: message }) };
}

export const TOO_MANY_REQUESTS: Readonly<RestReply> = { status: 429, body: '{"error":"too many requests"}' };

export function simErrorReply(error: SimError): RestReply {
  return nestedError(error.status, error.code, error.message, error.details);
}

/** A finished reply thrown out of request decoding; the dispatcher catches and sends it. */
export class RestError extends Error {
  readonly code: 'SIM_REST_REPLY' = 'SIM_REST_REPLY';
  readonly reply: RestReply;
  constructor(reply: RestReply) {
    super(reply.body ?? String(reply.status));
    this.name = 'RestError';
    this.reply = reply;
  }
}

/** 400 nested bad_request naming the field: a value present with the right JSON type but unusable. */
export function invalidField(field: string, message: string): RestError {
  return new RestError(nestedError(400, 'bad_request', message, field));
}

/** 400 flat bad_request: the body does not decode into the request type (wrong JSON type). */
export function undecodableField(field: string, expected: string): RestError {
  return new RestError(flatError(400, 'bad_request', `json: cannot decode field "${field}": expected ${expected}`));
}
