/**
 * Constructors for the engine's expected failures (SimError): the exchange's REST status and
 * error code with a human message and optional details (rest.md §2). Errors are values returned
 * to the caller, never thrown; broken invariants use core's assert instead.
 */

import type { SimError, SimErrorCode } from './types.ts';

export function simError(status: number, code: SimErrorCode, message: string, details?: string): SimError {
  return details === undefined
    ? Object.freeze({ isError: true as const, status, code, message })
    : Object.freeze({ isError: true as const, status, code, message, details });
}

// Shared instances for failures the hot path may return often (no allocation per reject).
export const ERR_USER_NOT_FOUND = simError(404, 'user_not_found', 'user not found');
export const ERR_MARKET_NOT_FOUND = simError(404, 'market_not_found', 'market not found');
export const ERR_ORDER_NOT_FOUND = simError(404, 'not_found', 'order not found');
export const ERR_GROUP_NOT_FOUND = simError(404, 'not_found', 'order group not found');
export const ERR_DUPLICATE_CLIENT_ID = simError(409, 'order_already_exists', 'order with this client_order_id already exists');
export const ERR_INVALID_PRICE = simError(400, 'invalid_price', 'price is not a valid price for this market');
export const ERR_INVALID_COUNT = simError(400, 'invalid_order_size', 'count must be a positive multiple of 0.01 contract within the maximum order size');
export const ERR_INSUFFICIENT_BALANCE = simError(400, 'insufficient_balance', 'insufficient balance');
export const ERR_MARKET_CLOSED = simError(400, 'market_closed', 'market is not open for trading');
export const ERR_POST_ONLY_CROSS = simError(400, 'invalid_order', 'invalid order', 'post only cross');
export const ERR_GROUP_TRIGGERED = simError(400, 'order_group_triggered', 'order group is triggered; reset it before placing orders');
export const ERR_TRADING_PAUSED = simError(400, 'trading_paused', 'trading is paused on this exchange index');
export const ERR_EXCHANGE_PAUSED = simError(503, 'exchange_paused', 'exchange is not active');
export const ERR_BAD_SUBACCOUNT = simError(400, 'bad_request', 'subaccount must be an integer from 0 to 63');
export const ERR_BAD_EXCHANGE_INDEX = simError(400, 'bad_request', 'exchange_index does not match the market');
export const ERR_BAD_LIMIT = simError(400, 'bad_request', 'limit out of range');
