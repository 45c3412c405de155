/**
 * The clearing-member resources (interface-spec, clearing-member resources) as typed values and
 * their decoders from an ExactJson tree. Every money field is int64 centicents held as bigint
 * (1 USD = 10,000 centicents), never a float; a money field that is not an integer literal, or is
 * outside int64, is a malformed body naming its JSON path. Unknown fields are ignored (the seed:
 * "structure may change as margin methodology evolves"); a missing required field is an error.
 * This file decodes; it does no I/O.
 */

import { ClearingError } from './clearing-error.ts';
import { JsonDecimal, type ExactJson } from './exact-json.ts';

export type Centicents = bigint;

export interface SettlementDetail {
  id: string;
  marketTicker: string;
  subtraderId: string;
  /** Signed fixed-point contract count, as sent ("5.00"). */
  positionQuantityFp: string;
  pnlCenticents: Centicents;
  totalFeesCenticents: Centicents;
  totalAmountCenticents: Centicents;
}

export interface MaintenanceMarginDetail {
  id: string;
  subtraderId: string;
  /** Set when the subtrader is part of a subtrader group, else null. */
  marginGroupId: string | null;
  maintenanceMarginCenticents: Centicents;
  maintenanceMarginDeltaCenticents: Centicents;
}

export interface FundingPaymentDetail {
  id: string;
  marketTicker: string;
  subtraderId: string;
  fundingTime: string;
  positionQuantityFp: string;
  notionalValueCenticents: Centicents;
  fundingAmountCenticents: Centicents;
}

export interface ObligationReceive {
  id: string;
  type: string;
  amountCenticents: Centicents;
  externalReference: string;
  createdTs: string;
}

export interface Obligation {
  id: string;
  userId: string;
  amountCenticents: Centicents;
  feesCenticents: Centicents;
  maintenanceMarginCenticents: Centicents;
  pnlCenticents: Centicents;
  executionTime: string;
  lastUpdatedTs: string;
  assetClass: string;
  receives: ObligationReceive[];
  settlementDetails: SettlementDetail[];
  maintenanceMarginDetails: MaintenanceMarginDetail[];
  fundingPayments: FundingPaymentDetail[];
  /** The *_truncated flags as sent (absent = false). */
  settlementDetailsTruncated: boolean;
  maintenanceMarginDetailsTruncated: boolean;
  fundingPaymentsTruncated: boolean;
}

export interface FundingEstimate {
  estimatedFundingCenticents: Centicents;
  /** null when the server does not send it (the seed does not show the value's shape). */
  nextFundingTime: string | null;
}

/** The three detail arrays: wire name, the routes' last path segment. */
export const DETAIL_ARRAYS = ['settlement_details', 'maintenance_margin_details', 'funding_payments'] as const;
export type DetailArray = (typeof DETAIL_ARRAYS)[number];

export interface DetailRowOf {
  settlement_details: SettlementDetail;
  maintenance_margin_details: MaintenanceMarginDetail;
  funding_payments: FundingPaymentDetail;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

type JsonObject = { [key: string]: ExactJson };

function malformed(path: string, what: string): ClearingError {
  return new ClearingError('CLEARING_MALFORMED_BODY', `malformed response body: ${path}: ${what}`);
}

function describe(value: ExactJson | undefined): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'bigint') return 'an integer';
  if (value instanceof JsonDecimal) return `the non-integer number ${value.text.slice(0, 40)}`;
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

export function objectAt(value: ExactJson | undefined, path: string): JsonObject {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonDecimal) {
    throw malformed(path, `expected an object, got ${describe(value)}`);
  }
  return value;
}

export function arrayAt(value: ExactJson | undefined, path: string): ExactJson[] {
  if (!Array.isArray(value)) throw malformed(path, `expected an array, got ${describe(value)}`);
  return value;
}

export function stringAt(object: JsonObject, key: string, path: string): string {
  const value = object[key];
  if (typeof value !== 'string') throw malformed(`${path}.${key}`, `expected a string, got ${describe(value)}`);
  return value;
}

function optionalStringAt(object: JsonObject, key: string, path: string): string | null {
  return object[key] === undefined || object[key] === null ? null : stringAt(object, key, path);
}

/** An int64 money field: an integer literal within int64. */
export function int64At(object: JsonObject, key: string, path: string): bigint {
  const value = object[key];
  if (typeof value !== 'bigint') throw malformed(`${path}.${key}`, `expected an int64 integer, got ${describe(value)}`);
  if (value < INT64_MIN || value > INT64_MAX) throw new ClearingError('CLEARING_INT64_RANGE', `malformed response body: ${path}.${key}: ${value} is outside int64`);
  return value;
}

function flagAt(object: JsonObject, key: string, path: string): boolean {
  const value = object[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw malformed(`${path}.${key}`, `expected a boolean, got ${describe(value)}`);
  return value;
}

function quantityAt(object: JsonObject, key: string, path: string): string {
  const text = stringAt(object, key, path);
  if (!/^-?\d{1,20}(\.\d{1,8})?$/.test(text)) throw malformed(`${path}.${key}`, `expected a fixed-point count, got ${JSON.stringify(text.slice(0, 40))}`);
  return text;
}

export function decodeSettlementDetail(value: ExactJson, path: string): SettlementDetail {
  const o = objectAt(value, path);
  return {
    id: stringAt(o, 'id', path),
    marketTicker: stringAt(o, 'market_ticker', path),
    subtraderId: stringAt(o, 'subtrader_id', path),
    positionQuantityFp: quantityAt(o, 'position_quantity_fp', path),
    pnlCenticents: int64At(o, 'pnl_centicents', path),
    totalFeesCenticents: int64At(o, 'total_fees_centicents', path),
    totalAmountCenticents: int64At(o, 'total_amount_centicents', path),
  };
}

export function decodeMaintenanceMarginDetail(value: ExactJson, path: string): MaintenanceMarginDetail {
  const o = objectAt(value, path);
  return {
    id: stringAt(o, 'id', path),
    subtraderId: stringAt(o, 'subtrader_id', path),
    marginGroupId: optionalStringAt(o, 'margin_group_id', path),
    maintenanceMarginCenticents: int64At(o, 'maintenance_margin_centicents', path),
    maintenanceMarginDeltaCenticents: int64At(o, 'maintenance_margin_delta_centicents', path),
  };
}

export function decodeFundingPaymentDetail(value: ExactJson, path: string): FundingPaymentDetail {
  const o = objectAt(value, path);
  return {
    id: stringAt(o, 'id', path),
    marketTicker: stringAt(o, 'market_ticker', path),
    subtraderId: stringAt(o, 'subtrader_id', path),
    fundingTime: stringAt(o, 'funding_time', path),
    positionQuantityFp: quantityAt(o, 'position_quantity_fp', path),
    notionalValueCenticents: int64At(o, 'notional_value_centicents', path),
    fundingAmountCenticents: int64At(o, 'funding_amount_centicents', path),
  };
}

function decodeReceive(value: ExactJson, path: string): ObligationReceive {
  const o = objectAt(value, path);
  return {
    id: stringAt(o, 'id', path),
    type: stringAt(o, 'type', path),
    amountCenticents: int64At(o, 'amount_centicents', path),
    externalReference: stringAt(o, 'external_reference', path),
    createdTs: stringAt(o, 'created_ts', path),
  };
}

export const DETAIL_DECODERS: { [A in DetailArray]: (value: ExactJson, path: string) => DetailRowOf[A] } = {
  settlement_details: decodeSettlementDetail,
  maintenance_margin_details: decodeMaintenanceMarginDetail,
  funding_payments: decodeFundingPaymentDetail,
};

function rowsAt<A extends DetailArray>(o: JsonObject, array: A, path: string): DetailRowOf[A][] {
  const decode = DETAIL_DECODERS[array];
  return arrayAt(o[array], `${path}.${array}`).map((row, i) => decode(row, `${path}.${array}[${i}]`));
}

export function decodeObligation(value: ExactJson, path: string): Obligation {
  const o = objectAt(value, path);
  return {
    id: stringAt(o, 'id', path),
    userId: stringAt(o, 'user_id', path),
    amountCenticents: int64At(o, 'amount_centicents', path),
    feesCenticents: int64At(o, 'fees_centicents', path),
    maintenanceMarginCenticents: int64At(o, 'maintenance_margin_centicents', path),
    pnlCenticents: int64At(o, 'pnl_centicents', path),
    executionTime: stringAt(o, 'execution_time', path),
    lastUpdatedTs: stringAt(o, 'last_updated_ts', path),
    assetClass: stringAt(o, 'asset_class', path),
    receives: arrayAt(o.receives, `${path}.receives`).map((row, i) => decodeReceive(row, `${path}.receives[${i}]`)),
    settlementDetails: rowsAt(o, 'settlement_details', path),
    maintenanceMarginDetails: rowsAt(o, 'maintenance_margin_details', path),
    fundingPayments: rowsAt(o, 'funding_payments', path),
    settlementDetailsTruncated: flagAt(o, 'settlement_details_truncated', path),
    maintenanceMarginDetailsTruncated: flagAt(o, 'maintenance_margin_details_truncated', path),
    fundingPaymentsTruncated: flagAt(o, 'funding_payments_truncated', path),
  };
}

/** GetActiveMarginObligationsResponse: `{obligations: [...]}`. */
export function decodeActiveObligations(value: ExactJson): Obligation[] {
  const body = objectAt(value, '$');
  return arrayAt(body.obligations, '$.obligations').map((entry, i) => decodeObligation(entry, `$.obligations[${i}]`));
}

/**
 * `{estimates: {<asset class>: {...}}}`. The seed names only "estimates, keyed by asset class";
 * the value's fields are the simulator's reading (estimated_funding_centicents, next_funding_time).
 */
export function decodeFundingEstimates(value: ExactJson): Map<string, FundingEstimate> {
  const estimates = objectAt(objectAt(value, '$').estimates, '$.estimates');
  const out = new Map<string, FundingEstimate>();
  for (const assetClass of Object.keys(estimates).sort()) {
    const path = `$.estimates.${assetClass}`;
    const entry = objectAt(estimates[assetClass], path);
    out.set(assetClass, {
      estimatedFundingCenticents: int64At(entry, 'estimated_funding_centicents', path),
      nextFundingTime: optionalStringAt(entry, 'next_funding_time', path),
    });
  }
  return out;
}

/**
 * One page of a detail route. The seed does not show these routes' parameters or payload; this is
 * the simulator's reading: `?limit=1..1000&cursor=...` answering `{<array>: [...], cursor}` with
 * cursor "" (or absent / null) on the last page.
 */
export function decodeDetailPage<A extends DetailArray>(value: ExactJson, array: A): { rows: DetailRowOf[A][]; cursor: string } {
  const body = objectAt(value, '$');
  const rows = rowsAt(body, array, '$');
  const cursor = body.cursor === undefined || body.cursor === null ? '' : stringAt(body, 'cursor', '$');
  return { rows, cursor };
}
