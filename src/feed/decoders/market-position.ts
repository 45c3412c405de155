/**
 * The private `market_position` message (channel `market_positions`, spec/websocket.md §6.6) as one
 * reused record. Listeners copy what they keep.
 */

import { CENTICENTS_INVALID, COUNT_INVALID, type Centicents, type Count } from '../../core/index.ts';
import type { FieldReader } from './field-reader.ts';

export class MarketPositionRecord {
  readonly type = 'market_position';
  sid = 0;
  userId = '';
  marketTicker = '';
  /** Signed contracts held: positive YES, negative NO. */
  position: Count = COUNT_INVALID;
  positionCost: Centicents = CENTICENTS_INVALID;
  realizedPnl: Centicents = CENTICENTS_INVALID;
  feesPaid: Centicents = CENTICENTS_INVALID;
  positionFeeCost: Centicents = CENTICENTS_INVALID;
  volume: Count = COUNT_INVALID;
  subaccount = -1;
}

export function readMarketPosition(reader: FieldReader, out: MarketPositionRecord): void {
  out.userId = reader.optString('user_id', '');
  out.marketTicker = reader.string('market_ticker');
  out.position = reader.signedCount('position_fp');
  out.positionCost = reader.optDollars('position_cost_dollars');
  out.realizedPnl = reader.optDollars('realized_pnl_dollars');
  out.feesPaid = reader.optDollars('fees_paid_dollars');
  out.positionFeeCost = reader.optDollars('position_fee_cost_dollars');
  out.volume = reader.optCount('volume_fp');
  out.subaccount = reader.optIndex('subaccount', -1);
}
