/**
 * A typed client of the clearing-member API (interface-spec, clearing-member API) on one undici
 * Pool: GET /margin/active_obligations, /margin/funding_estimate_by_asset_class and one page of a
 * detail route. Bearer `admin_user_id:access_token`; no retries (a caller that wants one decides,
 * the API is read-only so it is always safe); every failure is a ClearingError with a stable code
 * (clearing-error.ts). Bodies are read up to maxBodyBytes and parsed by exact-json.ts, so int64
 * centicents past 2^53 arrive exact as bigint. Paging across pages is detail-pager.ts's job.
 */

import { Pool, errors as undiciErrors } from 'undici';
import { ClearingError } from './clearing-error.ts';
import type { ClearingCredential } from './credential.ts';
import { JsonDecimal, JsonSyntaxError, parseExactJson, type ExactJson } from './exact-json.ts';
import {
  decodeActiveObligations,
  decodeDetailPage,
  decodeFundingEstimates,
  type DetailArray,
  type DetailRowOf,
  type FundingEstimate,
  type Obligation,
} from './obligations.ts';

export interface ClearingClientOptions {
  /** Origin and version path, e.g. http://127.0.0.1:9000/clearing-api/v1 (the seed's {clearing_base_url}). */
  baseUrl: string;
  credential: ClearingCredential;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Largest body read, bytes. */
  maxBodyBytes?: number;
}

export const CLEARING_CLIENT_DEFAULTS = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  // Three full inline arrays of 1,000 rows are under 1 MB per obligation; 64 MiB is room for many
  // asset classes while still bounding a runaway body.
  maxBodyBytes: 64 * 1024 * 1024,
} as const;

/** Largest `limit` of a detail page (the inline cap; the simulator's maximum). */
export const DETAIL_PAGE_LIMIT_MAX = 1000;

export class ClearingClient {
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #credential: ClearingCredential;
  readonly #maxBodyBytes: number;
  readonly #origin: string;

  constructor(options: ClearingClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new ClearingError('CLEARING_BAD_URL', `not a URL: ${JSON.stringify(options.baseUrl.slice(0, 200))}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClearingError('CLEARING_BAD_URL', `expected an http(s) URL, got ${url.protocol}`);
    if (url.username !== '' || url.password !== '') throw new ClearingError('CLEARING_BAD_URL', 'the URL must not carry user info (use the credential)');
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#credential = options.credential;
    this.#maxBodyBytes = options.maxBodyBytes ?? CLEARING_CLIENT_DEFAULTS.maxBodyBytes;
    this.#pool = new Pool(url.origin, {
      connections: 1, // a few sequential reads; one keep-alive socket serves them
      pipelining: 1,
      connectTimeout: options.connectTimeoutMs ?? CLEARING_CLIENT_DEFAULTS.connectTimeoutMs,
      headersTimeout: options.headersTimeoutMs ?? CLEARING_CLIENT_DEFAULTS.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs ?? CLEARING_CLIENT_DEFAULTS.bodyTimeoutMs,
    });
  }

  /** Every pending obligation, inline details as sent (capped at 1,000 rows with *_truncated). */
  async activeObligations(): Promise<Obligation[]> {
    return decodeActiveObligations(await this.#get('/margin/active_obligations'));
  }

  /** Estimated funding at the next funding time, by asset class. */
  async fundingEstimates(): Promise<Map<string, FundingEstimate>> {
    return decodeFundingEstimates(await this.#get('/margin/funding_estimate_by_asset_class'));
  }

  /** One page of an obligation's detail route; cursor "" asks for the first, "" back means last. */
  async detailPage<A extends DetailArray>(obligationId: string, array: A, cursor: string, limit: number = DETAIL_PAGE_LIMIT_MAX): Promise<{ rows: DetailRowOf[A][]; cursor: string }> {
    if (!Number.isInteger(limit) || limit < 1 || limit > DETAIL_PAGE_LIMIT_MAX) throw new RangeError(`limit must be 1-${DETAIL_PAGE_LIMIT_MAX}`);
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor !== '') query.set('cursor', cursor);
    return decodeDetailPage(await this.#get(`/margin/obligations/${encodeURIComponent(obligationId)}/${array}?${query.toString()}`), array);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  async #get(route: string): Promise<ExactJson> {
    const where = `GET ${this.#prefix}${route.split('?')[0]}`;
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      response = await this.#pool.request({
        method: 'GET',
        path: `${this.#prefix}${route}`,
        headers: { authorization: this.#credential.authorization(), accept: 'application/json' },
      });
    } catch (error) {
      throw transportError(error, where, this.#origin);
    }
    const text = await this.#readBody(response, where);
    const status = response.statusCode;
    if (status >= 200 && status < 300) {
      try {
        return parseExactJson(text);
      } catch (error) {
        if (error instanceof JsonSyntaxError) throw new ClearingError('CLEARING_MALFORMED_BODY', `${where}: ${status} body is not JSON (${error.message})`, status);
        throw error;
      }
    }
    throw statusError(status, text, where);
  }

  async #readBody(response: Awaited<ReturnType<Pool['request']>>, where: string): Promise<string> {
    const declared = Number(response.headers['content-length'] ?? -1);
    if (declared > this.#maxBodyBytes) {
      response.body.destroy();
      throw new ClearingError('CLEARING_BODY_TOO_LARGE', `${where}: body of ${declared} bytes exceeds ${this.#maxBodyBytes}`, response.statusCode);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > this.#maxBodyBytes) {
          response.body.destroy();
          throw new ClearingError('CLEARING_BODY_TOO_LARGE', `${where}: body exceeds ${this.#maxBodyBytes} bytes`, response.statusCode);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof ClearingError) throw error;
      throw transportError(error, where, this.#origin);
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, size));
    } catch {
      throw new ClearingError('CLEARING_MALFORMED_BODY', `${where}: body is not UTF-8`, response.statusCode);
    }
  }
}

function transportError(error: unknown, where: string, origin: string): ClearingError {
  if (error instanceof undiciErrors.ConnectTimeoutError || error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return new ClearingError('CLEARING_TIMEOUT', `${where}: ${(error as Error).message}`);
  }
  const code = (error as { code?: unknown }).code;
  return new ClearingError('CLEARING_UNREACHABLE', `${where}: cannot reach ${origin} (${typeof code === 'string' ? code : (error as Error).message})`);
}

/** The error body's code and message, flat `{code, message}` or nested `{error: {...}}`, sanitised. */
function errorBodyOf(text: string): { code: string; message: string } {
  let body: ExactJson;
  try {
    body = parseExactJson(text);
  } catch {
    return { code: '', message: '' };
  }
  let record = body !== null && typeof body === 'object' && !Array.isArray(body) && !(body instanceof JsonDecimal) ? body : null;
  const nested = record?.error;
  if (nested !== null && typeof nested === 'object' && !Array.isArray(nested) && !(nested instanceof JsonDecimal)) record = nested;
  const clean = (value: ExactJson | undefined): string => (typeof value === 'string' ? value.replace(/[\x00-\x1f\x7f]/g, ' ').slice(0, 200) : '');
  return { code: clean(record?.code), message: clean(record?.message) };
}

function statusError(status: number, text: string, where: string): ClearingError {
  const body = errorBodyOf(text);
  const said = body.code === '' && body.message === '' ? '' : `: ${body.code}${body.message === '' ? '' : ` (${body.message})`}`;
  if (status === 401) return new ClearingError('CLEARING_UNAUTHORIZED', `${where}: 401 unauthorized${said}; check the admin user id and access token`, status, body.code);
  if (status === 403) return new ClearingError('CLEARING_FORBIDDEN', `${where}: 403 forbidden${said}; the credential lacks permission for this resource`, status, body.code);
  if (status >= 400 && status < 500) return new ClearingError('CLEARING_CLIENT_ERROR', `${where}: ${status}${said}`, status, body.code);
  if (status >= 500 && status < 600) return new ClearingError('CLEARING_SERVER_ERROR', `${where}: ${status}${said}`, status, body.code);
  return new ClearingError('CLEARING_UNEXPECTED_STATUS', `${where}: unexpected status ${status}`, status, body.code);
}
