/**
 * The lifecycle channel's messages (spec/websocket.md §6.8) as reused records:
 * `market_lifecycle_v2` (created, activated, deactivated, close_date_updated, determined, settled,
 * price_level_structure_updated with price_ranges, metadata_updated, and any later event type,
 * kept as its string), `event_lifecycle` and `event_fee_update`. Fields an event does not carry
 * are reset to their sentinel on every decode, so nothing leaks from the previous message.
 * Listeners copy what they keep; `priceRanges` and the metadata objects are JSON.parse's own
 * objects, never mutated by the feed.
 */

import { CENTICENTS_INVALID, type Centicents, type PriceRangeText } from '../../core/index.ts';
import { isObject, type FieldReader } from './field-reader.ts';

export type MarketLifecycleEventType =
  | 'created'
  | 'activated'
  | 'deactivated'
  | 'close_date_updated'
  | 'determined'
  | 'settled'
  | 'price_level_structure_updated'
  | 'metadata_updated';

export class MarketLifecycleRecord {
  readonly type = 'market_lifecycle_v2';
  sid = 0;
  seq = -1;
  /** One of MarketLifecycleEventType, or a newer event type as sent. */
  eventType: MarketLifecycleEventType | (string & {}) = 'created';
  marketTicker = '';
  exchangeIndex = -1;
  /** Unix seconds; -1 when absent. */
  openTs = -1;
  closeTs = -1;
  determinationTs = -1;
  settledTs = -1;
  /** '' when absent. */
  result = '';
  settlementValue: Centicents = CENTICENTS_INVALID;
  /** Pause state on activated/deactivated; null when absent. */
  isDeactivated: boolean | null = null;
  /** As sent (validated by PriceGrid when used); null when absent. */
  priceLevelStructure: string | null = null;
  /** Checked to be {start, end, step} strings; null when absent. */
  priceRanges: readonly PriceRangeText[] | null = null;
  strikeType: string | null = null;
  floorStrike: number | null = null;
  capStrike: number | null = null;
  customStrike: Record<string, unknown> | null = null;
  yesSubTitle: string | null = null;
  /** `additional_metadata` of `created`; null when absent. */
  additionalMetadata: Record<string, unknown> | null = null;
}

export class EventLifecycleRecord {
  readonly type = 'event_lifecycle';
  sid = 0;
  seq = -1;
  eventTicker = '';
  exchangeIndex = -1;
  title = '';
  subtitle = '';
  collateralReturnType = '';
  seriesTicker = '';
  /** Unix seconds; -1 when absent. */
  strikeDate = -1;
  strikePeriod = '';
}

export class EventFeeUpdateRecord {
  readonly type = 'event_fee_update';
  sid = 0;
  seq = -1;
  eventTicker = '';
  /** null: the override was cleared. */
  feeTypeOverride: string | null = null;
  feeMultiplierOverride: number | null = null;
}

export type LifecycleRecord = MarketLifecycleRecord | EventLifecycleRecord | EventFeeUpdateRecord;

function isPriceRanges(value: unknown): value is PriceRangeText[] {
  if (!Array.isArray(value)) return false;
  for (const range of value) {
    if (!isObject(range) || typeof range.start !== 'string' || typeof range.end !== 'string' || typeof range.step !== 'string') return false;
  }
  return true;
}

function optNumber(reader: FieldReader, key: string): number | null {
  const value = reader.raw(key);
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  reader.fail(key);
  return null;
}

function optObject(reader: FieldReader, key: string): Record<string, unknown> | null {
  const value = reader.raw(key);
  if (value === undefined || value === null) return null;
  if (isObject(value)) return value;
  reader.fail(key);
  return null;
}

export function readMarketLifecycle(reader: FieldReader, out: MarketLifecycleRecord): void {
  out.eventType = reader.string('event_type');
  out.marketTicker = reader.string('market_ticker');
  out.exchangeIndex = reader.optIndex('exchange_index', -1);
  out.openTs = reader.optIndex('open_ts', -1);
  out.closeTs = reader.optIndex('close_ts', -1);
  out.determinationTs = reader.optIndex('determination_ts', -1);
  out.settledTs = reader.optIndex('settled_ts', -1);
  out.result = reader.optString('result', '');
  out.settlementValue = reader.optDollars('settlement_value');
  out.isDeactivated = reader.has('is_deactivated') ? reader.bool('is_deactivated') : null;
  out.priceLevelStructure = reader.has('price_level_structure') ? reader.string('price_level_structure') : null;
  const ranges = reader.raw('price_ranges');
  if (ranges === undefined || ranges === null) out.priceRanges = null;
  else if (isPriceRanges(ranges)) out.priceRanges = ranges;
  else {
    out.priceRanges = null;
    reader.fail('price_ranges');
  }
  out.strikeType = reader.has('strike_type') ? reader.optString('strike_type', '') : null;
  out.floorStrike = optNumber(reader, 'floor_strike');
  out.capStrike = optNumber(reader, 'cap_strike');
  out.customStrike = optObject(reader, 'custom_strike');
  out.yesSubTitle = reader.has('yes_sub_title') ? reader.optString('yes_sub_title', '') : null;
  out.additionalMetadata = optObject(reader, 'additional_metadata');
}

export function readEventLifecycle(reader: FieldReader, out: EventLifecycleRecord): void {
  out.eventTicker = reader.string('event_ticker');
  out.exchangeIndex = reader.optIndex('exchange_index', -1);
  out.title = reader.optString('title', '');
  // Jan-2026 schema called it sub_title.
  out.subtitle = reader.has('subtitle') ? reader.optString('subtitle', '') : reader.optString('sub_title', '');
  out.collateralReturnType = reader.optString('collateral_return_type', '');
  out.seriesTicker = reader.optString('series_ticker', '');
  out.strikeDate = reader.optIndex('strike_date', -1);
  out.strikePeriod = reader.optString('strike_period', '');
}

export function readEventFeeUpdate(reader: FieldReader, out: EventFeeUpdateRecord): void {
  out.eventTicker = reader.string('event_ticker');
  out.feeTypeOverride = reader.has('fee_type_override') ? reader.optString('fee_type_override', '') : null;
  out.feeMultiplierOverride = optNumber(reader, 'fee_multiplier_override');
}
