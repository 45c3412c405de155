/**
 * MarketSettlementReport (35=UMS, fix.md §9) for the post-trade session KalshiPT: when a market
 * settles, each user that held a position in it gets one report (paged by party) naming, per
 * subaccount, the position before settlement (704 YES, 705 NO), the payout after the settlement fee
 * (1703 group, 1705=PAYOUT) and the fee (136 group). The hub listens to the engine: positions are
 * read when the market is determined (before the accounts pay them out) and reports go out when it
 * is settled, to the user's live KalshiPT sessions, or into the sequence store of a key whose last
 * PT session is gone (retransmitting: a reconnect without 141=Y resends them).
 *
 * Choices where §9 is silent: the party ID (20109) is the subaccount number (0 primary); the
 * simulator charges no settlement fee, so 137 is 0.00; 730 is the YES settlement value in cents
 * with 2 decimals (100.00 or 0.00); 715 is the Eastern date of the settlement; a page holds up to
 * PARTIES_PER_PAGE parties, each page with its own 20105 and 893=Y on the last.
 */

import { randomUUID } from 'node:crypto';
import { PRICE_ONE } from '../../../core/index.ts';
import { Tag, type FixEncoder } from '../../../fix/index.ts';
import { isSimError, type Market, type MarketLifecycleEvent, type SimEngine } from '../../engine/index.ts';
import { easternDate } from './eastern-time.ts';

const PARTIES_PER_PAGE = 100;

export interface SettlementParty {
  subaccount: number;
  /** Signed position before settlement, 1/100 contract: + YES, - NO. */
  position: number;
  /** Payout after fee, centicents. */
  payout: number;
  /** Settlement fee, centicents. */
  fee: number;
}

export interface SettlementPage {
  reportId: string;
  ticker: string;
  clearingDate: number; // YYYYMMDD, Eastern
  pages: number;
  last: boolean;
  result: string; // yes | no | scalar
  settlementValue: number; // centicents (PRICE_ONE = $1)
  parties: SettlementParty[];
}

/** Writes the body of one UMS page after the header. */
export function writeSettlementReport(encoder: FixEncoder, page: SettlementPage): void {
  encoder.string(Tag.MarketSettlementReportID, page.reportId).string(Tag.Symbol, page.ticker).int(Tag.ClearingBusinessDate, page.clearingDate)
    .int(Tag.TotNumMarketSettlementReports, page.pages).string(Tag.MarketResult, page.result).flag(Tag.LastFragment, page.last)
    .fixed(Tag.SettlementPrice, page.settlementValue, 2, 2) // centicents with scale 2 = cents with 2 decimals
    .int(Tag.NoMarketSettlementPartyIDs, page.parties.length);
  for (const party of page.parties) {
    const size = Math.abs(party.position);
    encoder.string(Tag.MarketSettlementPartyID, String(party.subaccount)).int(Tag.MarketSettlementPartyRole, 24)
      .count(Tag.LongQty, party.position > 0 ? size : 0).count(Tag.ShortQty, party.position < 0 ? size : 0)
      .int(Tag.NoCollateralAmountChanges, 1).dollars(Tag.CollateralAmountChange, party.payout, 2).string(Tag.CollateralType, 'PAYOUT')
      .int(Tag.NoMiscFees, 1).dollars(Tag.MiscFeeAmt, party.fee, 2).string(Tag.MiscFeeCurr, 'USD').int(Tag.MiscFeeType, 4).int(Tag.MiscFeeBasis, 0);
  }
}

export interface SettlementHubOptions {
  engine: SimEngine;
  /** The users to report to (those with a KalshiPT key, live or not). */
  users(): Iterable<string>;
  /** Delivers one page to every PT session or store of the user. */
  deliver(userId: string, page: SettlementPage): void;
}

export class SettlementHub {
  readonly #options: SettlementHubOptions;
  /** ticker -> userId -> positions by subaccount, captured at determination. */
  readonly #captured = new Map<string, Map<string, Array<{ subaccount: number; position: number }>>>();

  constructor(options: SettlementHubOptions) {
    this.#options = options;
  }

  attach(): () => void {
    return this.#options.engine.subscribe({ onMarketLifecycle: (event) => this.#onLifecycle(event) });
  }

  #onLifecycle(event: MarketLifecycleEvent): void {
    if (event.eventType === 'determined') this.#captured.set(event.market.ticker, this.#capture(event.market));
    else if (event.eventType === 'settled') this.#report(event.market, event.tsMs);
  }

  #capture(market: Market): Map<string, Array<{ subaccount: number; position: number }>> {
    const byUser = new Map<string, Array<{ subaccount: number; position: number }>>();
    for (const userId of this.#options.users()) {
      const page = this.#options.engine.listPositions(userId, { ticker: market.ticker, countFilter: 'position', limit: 1000 });
      if (isSimError(page)) continue;
      const held = page.marketPositions.filter((p) => p.ticker === market.ticker && p.position !== 0)
        .map((p) => ({ subaccount: p.subaccount, position: p.position as number }));
      if (held.length > 0) byUser.set(userId, held);
    }
    return byUser;
  }

  #report(market: Market, tsMs: number): void {
    const captured = this.#captured.get(market.ticker) ?? this.#capture(market);
    this.#captured.delete(market.ticker);
    const value = market.settlementValue ?? (market.result === 'yes' ? PRICE_ONE : 0);
    const result = market.result === 'yes' || market.result === 'no' ? market.result : 'scalar';
    for (const [userId, held] of captured) {
      const parties: SettlementParty[] = held.map(({ subaccount, position }) => {
        const size = Math.abs(position);
        // The value per YES contract is `value`, per NO contract PRICE_ONE - value; size is 1/100 contract.
        const perContract = position > 0 ? value : PRICE_ONE - value;
        return { subaccount, position, payout: Math.round((perContract * size) / 100), fee: 0 };
      });
      const pages = Math.max(1, Math.ceil(parties.length / PARTIES_PER_PAGE));
      for (let p = 0; p < pages; p++) {
        this.#options.deliver(userId, {
          reportId: randomUUID(), ticker: market.ticker, clearingDate: easternDate(tsMs), pages, last: p === pages - 1, result,
          settlementValue: value, parties: parties.slice(p * PARTIES_PER_PAGE, (p + 1) * PARTIES_PER_PAGE),
        });
      }
    }
  }
}
