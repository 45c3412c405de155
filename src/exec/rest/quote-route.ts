/**
 * The REST quote route (rest.md, OpenAPI /communications/*): creates, withdraws and confirms our
 * quotes on RFQs and lists them for reconciliation, over its own signed undici pool
 * (SignedRestClient). Not the order hot path: an RFQ arrives ~10/s, the request is signed in the
 * presigner's worker when one runs and sent after the strategy's callback returned; the answer
 * goes to the quote book (QuoteListener). Owns the paths, the bodies and the parsing of answers;
 * keeps no quote state.
 *
 *   create  POST   /communications/quotes {rfq_id, yes_bid, no_bid, rest_remainder, post_only, subaccount} -> 201 {id}
 *   cancel  DELETE /communications/rfqs/{rfq_id}/quotes/{quote_id}                                          -> 204
 *   confirm PUT    /communications/rfqs/{rfq_id}/quotes/{quote_id}/confirm {}                               -> 204
 *   list    GET    /communications/quotes?user_filter=self (paged by cursor)
 */

import { formatPrice, parsePrice, PRICE_INVALID, type Price } from '../../core/index.ts';
import { ExecError } from '../../oms/index.ts';
import type { QuoteEntry, QuoteListener, QuoteRequest, WireQuote } from '../../oms/index.ts';
import { jsonString } from './order-body.ts';
import { signedClientFor, type SignedRestClient, type VenueClientOptions } from './signed-rest-client.ts';

const STATUSES = ['open', 'accepted', 'confirmed', 'executed', 'cancelled'] as const;

export interface RestQuoteRouteOptions extends VenueClientOptions {
  /** The venue keeps a remainder of an executed quote resting for us when true. */
  restRemainder: boolean;
  readPageLimit: number;
  readPagesMax: number;
}

export const REST_QUOTE_ROUTE_DEFAULTS: Readonly<Omit<RestQuoteRouteOptions, 'baseUrl' | 'keyId' | 'privateKey' | 'clock' | 'presigner'>> = Object.freeze({
  connections: 1,
  connectTimeoutMs: 2_000,
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 5_000,
  keepAliveTimeoutMs: 60_000,
  restRemainder: false,
  readPageLimit: 500, // the venue's maximum for this list
  readPagesMax: 100,
  tls: null,
});

const NO_LISTENER: QuoteListener = {
  onQuoteCreateAck() {}, onQuoteCreateReject() {}, onQuoteCreateUnknown() {}, onQuoteCancelAck() {},
  onQuoteCancelReject() {}, onQuoteConfirmAck() {}, onQuoteConfirmReject() {},
};

/** The body of POST /communications/quotes (prices as 4-decimal dollar strings). */
export function encodeCreateQuote(quote: QuoteRequest, restRemainder: boolean): string {
  return `{"rfq_id":${jsonString(quote.rfqId)},"yes_bid":"${formatPrice(quote.yesBid)}","no_bid":"${formatPrice(quote.noBid)}","rest_remainder":${restRemainder},"post_only":${quote.postOnly},"subaccount":${quote.subaccount}}`;
}

export class RestQuoteRoute implements QuoteEntry {
  readonly #options: RestQuoteRouteOptions;
  readonly #prefix: string;
  readonly #client: SignedRestClient;
  #listener: QuoteListener = NO_LISTENER;

  constructor(options: RestQuoteRouteOptions) {
    this.#options = options;
    const { client, prefix } = signedClientFor(options);
    this.#client = client;
    this.#prefix = prefix;
  }

  setListener(listener: QuoteListener): void {
    this.#listener = listener;
  }

  /** Opens the pool's socket with a signed GET (our communications id). */
  async connect(): Promise<void> {
    await this.#client.warm(`${this.#prefix}/communications/id`, this.#options.connections);
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  create(quote: QuoteRequest): void {
    const handle = quote.handle;
    const body = encodeCreateQuote(quote, this.#options.restRemainder);
    this.#client.call('POST', `${this.#prefix}/communications/quotes`, body).then(
      (answer) => {
        const id = answer?.['id'];
        if (typeof id === 'string' && id !== '') this.#listener.onQuoteCreateAck(handle, id);
        else this.#listener.onQuoteCreateUnknown(handle, 'EXEC_BAD_RESPONSE');
      },
      (error: unknown) => {
        if (isApplied(error)) this.#listener.onQuoteCreateReject(handle, rejectCode(error), (error as ExecError).status);
        else this.#listener.onQuoteCreateUnknown(handle, error instanceof ExecError ? error.code : 'EXEC_DISCONNECTED');
      },
    );
  }

  cancel(quote: QuoteRequest): void {
    const handle = quote.handle;
    this.#client.call('DELETE', this.#quotePath(quote, ''), null).then(
      () => this.#listener.onQuoteCancelAck(handle),
      (error: unknown) => this.#listener.onQuoteCancelReject(handle, rejectCode(error), error instanceof ExecError ? error.status : 0),
    );
  }

  confirm(quote: QuoteRequest): void {
    const handle = quote.handle;
    this.#client.call('PUT', this.#quotePath(quote, '/confirm'), '{}').then(
      () => this.#listener.onQuoteConfirmAck(handle),
      (error: unknown) => this.#listener.onQuoteConfirmReject(handle, rejectCode(error), error instanceof ExecError ? error.status : 0),
    );
  }

  async listQuotes(): Promise<WireQuote[]> {
    const params = new URLSearchParams();
    params.set('user_filter', 'self');
    const items = await this.#client.pages(`${this.#prefix}/communications/quotes`, params, 'quotes', this.#options.readPageLimit, this.#options.readPagesMax);
    return items.map(parseWireQuote);
  }

  #quotePath(quote: QuoteRequest, suffix: string): string {
    return `${this.#prefix}/communications/rfqs/${encodeURIComponent(quote.rfqId)}/quotes/${encodeURIComponent(quote.quoteId)}${suffix}`;
  }
}

/** A 4xx answer: the venue decided (nothing applied). 5xx, timeouts and transport failures leave the fate unknown. */
function isApplied(error: unknown): boolean {
  return error instanceof ExecError && error.status >= 400 && error.status < 500;
}

function rejectCode(error: unknown): string {
  if (error instanceof ExecError) return error.reject !== null && error.reject.code !== '' ? error.reject.code : error.code;
  return 'EXEC_DISCONNECTED';
}

function price(value: unknown): Price {
  return typeof value === 'string' ? parsePrice(value) : PRICE_INVALID;
}

/** One item of GET /communications/quotes in core units. */
export function parseWireQuote(item: Record<string, unknown>): WireQuote {
  const id = item['id'];
  const status = item['status'];
  if (typeof id !== 'string' || typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) {
    throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: quote without id or status');
  }
  const side = item['accepted_side'];
  const sub = item['creator_subaccount'];
  const accepted = item['accepted_ts'];
  const acceptedMs = typeof accepted === 'string' ? Date.parse(accepted) : Number.NaN;
  return {
    quoteId: id,
    rfqId: typeof item['rfq_id'] === 'string' ? item['rfq_id'] : '',
    marketTicker: typeof item['market_ticker'] === 'string' ? item['market_ticker'] : '',
    status: status as WireQuote['status'],
    yesBid: price(item['yes_bid_dollars']),
    noBid: price(item['no_bid_dollars']),
    acceptedSide: side === 'yes' || side === 'no' ? side : '',
    subaccount: typeof sub === 'number' && Number.isSafeInteger(sub) ? sub : 0,
    acceptedMs: Number.isNaN(acceptedMs) ? 0 : acceptedMs,
  };
}
