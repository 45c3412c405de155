/**
 * The net folder's public surface: the raw clients the hot path speaks through, below any
 * exchange protocol: an HTTP/1.1 connection pool (the REST route's transport) and a WebSocket
 * client (the feed's), with the failure codes routes map onto their own. Other folders import net
 * only through this file. Net knows bytes, sockets and timeouts; never orders or markets.
 */

export { NET_FAILURES, NetError } from './net-error.ts';
export type { NetFailure } from './net-error.ts';
export { RAW_HTTP_WRITE_CHANNEL, RAW_HTTP_WRITE_START_CHANNEL } from './raw-http-connection.ts';
export type { RawExchangeHandler } from './raw-http-connection.ts';
export { RawHttpPool, RawRequestHead, SendResult } from './raw-http-pool.ts';
export type { RawHttpPoolOptions, RawHttpPoolStats } from './raw-http-pool.ts';
export { RequestLine, SIGNATURE_FIELD, assemble, assembleInto, bodyText, prefixText, signedFieldsBytes, signedFieldsBytesMax } from './request-bytes.ts';
export type { BodyWriter, RequestBody, RequestPrefix } from './request-bytes.ts';
export { HttpResponseParser, PARSE_ERRORS, ParseState } from './http-response-parser.ts';
export type { HttpResponseParserLimits } from './http-response-parser.ts';
export { CloseCode, RawWebSocket } from './raw-websocket.ts';
export type { RawBinaryListener, RawCloseEvent, RawTextListener, RawWebSocketOptions } from './raw-websocket.ts';
