/**
 * Wire renderings of RFQs, quotes and multivariate event collections: the REST objects of the
 * OpenAPI (`RFQ`, `Quote`, `MultivariateEventCollection`) and the `communications` WebSocket
 * payloads of websocket.md §6.11 (`rfq_created`, `rfq_deleted`, `quote_created`,
 * `quote_accepted`, `quote_executed`). Private fields are rendered for the party they belong to
 * only (the viewer): user ids, order ids, subaccounts, post_only. Counts are fixed-point strings
 * with 2 decimals, prices dollars with 4, times RFC 3339. This file owns shapes only.
 */

import { formatCount, formatDollars, formatPrice, type Price } from '../../core/index.ts';
import type { Collection, Quote, Rfq } from './types.ts';
import type { Json } from './render.ts';

/** Who is looking: private fields are shown to their owner only (a restricted key: on its subaccount). */
export interface Viewer {
  readonly userId: string;
  /** A restricted key's subaccount, null for a full-account key. */
  readonly lock: number | null;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isParty(viewer: Viewer | null, userId: string, subaccount: number): boolean {
  return viewer !== null && viewer.userId === userId && (viewer.lock === null || viewer.lock === subaccount);
}

function legsOf(rfq: Rfq): Json[] | undefined {
  if (rfq.mveSelectedLegs === null) return undefined;
  return rfq.mveSelectedLegs.map((leg) => ({ event_ticker: leg.eventTicker, market_ticker: leg.marketTicker, side: leg.side }));
}

/** The REST RFQ object. */
export function rfqToJson(rfq: Rfq, viewer: Viewer | null): Json {
  const out: Json = {
    id: rfq.rfqId,
    creator_id: rfq.creatorId,
    market_ticker: rfq.marketTicker,
    contracts_fp: formatCount(rfq.contracts),
    status: rfq.status,
    created_ts: iso(rfq.createdMs),
    updated_ts: iso(rfq.updatedMs),
    rest_remainder: rfq.restRemainder,
  };
  if (rfq.targetCost !== null) out.target_cost_dollars = formatDollars(rfq.targetCost);
  if (rfq.mveCollectionTicker !== null) {
    out.mve_collection_ticker = rfq.mveCollectionTicker;
    out.mve_selected_legs = legsOf(rfq);
  }
  if (rfq.status === 'closed') {
    out.cancelled_ts = iso(rfq.closedMs);
    out.cancellation_reason = rfq.cancellationReason;
  }
  if (isParty(viewer, rfq.userId, rfq.subaccount)) {
    out.creator_user_id = rfq.userId;
    out.creator_subaccount = rfq.subaccount;
  }
  return out;
}

/** The REST Quote object, private fields for the viewer's side only. */
export function quoteToJson(quote: Quote, viewer: Viewer | null): Json {
  const out: Json = {
    id: quote.quoteId,
    rfq_id: quote.rfqId,
    creator_id: quote.creatorId,
    rfq_creator_id: quote.rfqCreatorId,
    market_ticker: quote.marketTicker,
    contracts_fp: formatCount(quote.contracts),
    yes_bid_dollars: formatPrice(quote.yesBid),
    no_bid_dollars: formatPrice(quote.noBid),
    created_ts: iso(quote.createdMs),
    updated_ts: iso(quote.updatedMs),
    status: quote.status,
    rest_remainder: quote.restRemainder,
    yes_contracts_fp: formatCount(quote.yesContracts),
    no_contracts_fp: formatCount(quote.noContracts),
  };
  if (quote.rfqTargetCost !== null) out.rfq_target_cost_dollars = formatDollars(quote.rfqTargetCost);
  if (quote.acceptedSide !== null) out.accepted_side = quote.acceptedSide;
  if (quote.acceptedMs !== 0) out.accepted_ts = iso(quote.acceptedMs);
  if (quote.confirmedMs !== 0) out.confirmed_ts = iso(quote.confirmedMs);
  if (quote.executedMs !== 0) out.executed_ts = iso(quote.executedMs);
  if (quote.cancelledMs !== 0) {
    out.cancelled_ts = iso(quote.cancelledMs);
    out.cancellation_reason = quote.cancellationReason;
  }
  if (isParty(viewer, quote.userId, quote.subaccount)) {
    out.creator_user_id = quote.userId;
    out.creator_subaccount = quote.subaccount;
    out.post_only = quote.postOnly;
    if (quote.creatorOrderId !== '') out.creator_order_id = quote.creatorOrderId;
  }
  if (isParty(viewer, quote.rfqUserId, quote.rfqSubaccount)) {
    out.rfq_creator_user_id = quote.rfqUserId;
    out.rfq_creator_subaccount = quote.rfqSubaccount;
    if (quote.rfqCreatorOrderId !== '') out.rfq_creator_order_id = quote.rfqCreatorOrderId;
  }
  return out;
}

/** The REST MultivariateEventCollection object. */
export function collectionToJson(collection: Collection): Json {
  const spec = collection.spec;
  return {
    collection_ticker: spec.collectionTicker,
    series_ticker: spec.seriesTicker,
    exchange_index: collection.exchangeIndex,
    title: spec.title,
    description: spec.description,
    open_date: iso(spec.openTimeMs),
    close_date: iso(spec.closeTimeMs),
    associated_events: spec.associatedEvents.map((e) => ({
      ticker: e.eventTicker,
      is_yes_only: e.isYesOnly,
      size_max: e.sizeMax,
      size_min: e.sizeMin,
      active_quoters: [],
    })),
    associated_event_tickers: spec.associatedEvents.map((e) => e.eventTicker),
    is_ordered: spec.isOrdered,
    is_single_market_per_event: spec.associatedEvents.every((e) => e.sizeMax === 1),
    is_all_yes: spec.associatedEvents.every((e) => e.isYesOnly),
    size_min: spec.sizeMin,
    size_max: spec.sizeMax,
    functional_description: spec.functionalDescription,
  };
}

// ---------------------------------------------------------------------------------------------
// communications WebSocket payloads (websocket.md §6.11).

export function rfqCreatedToWsMsg(rfq: Rfq): Json {
  const out: Json = {
    id: rfq.rfqId,
    creator_id: rfq.creatorId,
    market_ticker: rfq.marketTicker,
    event_ticker: rfq.eventTicker,
    contracts_fp: formatCount(rfq.contracts),
    created_ts: iso(rfq.createdMs),
  };
  if (rfq.targetCost !== null) out.target_cost_dollars = formatDollars(rfq.targetCost);
  if (rfq.mveCollectionTicker !== null) {
    out.mve_collection_ticker = rfq.mveCollectionTicker;
    out.mve_selected_legs = legsOf(rfq);
  }
  return out;
}

export function rfqDeletedToWsMsg(rfq: Rfq): Json {
  const out: Json = {
    id: rfq.rfqId,
    creator_id: rfq.creatorId,
    market_ticker: rfq.marketTicker,
    event_ticker: rfq.eventTicker,
    contracts_fp: formatCount(rfq.contracts),
    deleted_ts: iso(rfq.closedMs),
  };
  if (rfq.targetCost !== null) out.target_cost_dollars = formatDollars(rfq.targetCost);
  return out;
}

function quoteCommon(quote: Quote): Json {
  const out: Json = {
    quote_id: quote.quoteId,
    rfq_id: quote.rfqId,
    quote_creator_id: quote.creatorId,
    rfq_creator_id: quote.rfqCreatorId,
    market_ticker: quote.marketTicker,
    event_ticker: quote.eventTicker,
    yes_bid_dollars: formatPrice(quote.yesBid as Price),
    no_bid_dollars: formatPrice(quote.noBid as Price),
    yes_contracts_offered_fp: formatCount(quote.yesContracts),
    no_contracts_offered_fp: formatCount(quote.noContracts),
  };
  if (quote.rfqTargetCost !== null) out.rfq_target_cost_dollars = formatDollars(quote.rfqTargetCost);
  return out;
}

/** `subaccount`: the recipient's own side's subaccount, or null to leave it out. */
export function quoteCreatedToWsMsg(quote: Quote, subaccount: number | null): Json {
  const out = quoteCommon(quote);
  out.created_ts = iso(quote.createdMs);
  if (subaccount !== null) out.subaccount = subaccount;
  return out;
}

export function quoteAcceptedToWsMsg(quote: Quote, subaccount: number | null): Json {
  const out = quoteCommon(quote);
  if (quote.acceptedSide !== null) {
    out.accepted_side = quote.acceptedSide;
    out.contracts_accepted_fp = formatCount(quote.acceptedSide === 'yes' ? quote.yesContracts : quote.noContracts);
  }
  if (subaccount !== null) out.subaccount = subaccount;
  return out;
}

/** quote_executed for one party: its own order ids (`forQuoteCreator` picks the side). */
export function quoteExecutedToWsMsg(quote: Quote, forQuoteCreator: boolean, subaccount: number | null): Json {
  const out: Json = {
    quote_id: quote.quoteId,
    rfq_id: quote.rfqId,
    quote_creator_id: quote.creatorId,
    rfq_creator_id: quote.rfqCreatorId,
    order_id: forQuoteCreator ? quote.creatorOrderId : quote.rfqCreatorOrderId,
    client_order_id: forQuoteCreator ? quote.creatorClientOrderId : quote.rfqCreatorClientOrderId,
    market_ticker: quote.marketTicker,
    executed_ts: iso(quote.executedMs),
  };
  if (subaccount !== null) out.subaccount = subaccount;
  return out;
}
