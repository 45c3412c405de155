/**
 * The Margin exchange's market catalog: perpetual markets on exchange_index 0 with their tick,
 * contract size, starting mark and reference prices, maker/taker fee rates, size-tiered maintenance
 * margin rates, initial-margin multiplier, margin mode (gross or portfolio) and funding schedule.
 * Read from config/margin-markets.json (or given directly by tests), checked once at start-up and
 * frozen. Rates are integer ppm (arith.ts); prices and dollar amounts are scanned from strings.
 */

import { readFileSync } from 'node:fs';
import { requireDollars, requirePrice, type Centicents, type Price } from '../../core/index.ts';

/** The only asset class the seed names (clearing AssetClass enumeration). */
export const ASSET_CLASSES = ['Crypto'] as const;
export type AssetClass = (typeof ASSET_CLASSES)[number];

/** One band of the maintenance margin schedule: applies to notionals up to `notionalMax` (null: no cap). */
export interface MarginTier {
  readonly notionalMax: Centicents | null;
  readonly maintenanceRatePpm: number;
}

export interface MarginMarketSpec {
  readonly ticker: string;
  readonly title: string;
  /** null: unassigned (the field is then omitted on the wire). */
  readonly assetClass: AssetClass | null;
  readonly tickSize: Price;
  /** Fixed-point, 6 decimals ("1.000000"). */
  readonly contractSize: string;
  readonly markPrice: Price;
  readonly referencePrice: Price;
  readonly makerFeePpm: number;
  readonly takerFeePpm: number;
  /** Ascending by notionalMax; the last tier has notionalMax null. */
  readonly marginTiers: readonly MarginTier[];
  /** Initial margin = maintenance margin x this / 1,000,000. */
  readonly initialMarginMultiplierPpm: number;
  /** Portfolio-margin market: positions of one asset class in one subaccount are margined jointly. */
  readonly portfolioMargin: boolean;
  readonly fundingIntervalMs: number;
  /** |funding rate| cap per period, ppm. */
  readonly fundingCapPpm: number;
}

export interface MarginCatalog {
  readonly markets: readonly MarginMarketSpec[];
  /** Margin ratio thresholds shown by GET /margin/risk_parameters (ppm of maintenance margin). */
  readonly liquidationMarginRatioPpm: number;
  readonly queueEntryMarginRatioPpm: number;
  /** Default notional risk limit per market. */
  readonly notionalRiskLimit: Centicents;
  /** Length of one clearing settlement cycle, ms (cycles start at Unix 0 + k x length). */
  readonly settlementCycleMs: number;
}

export const DEFAULT_MARGIN_CATALOG_FILE = 'config/margin-markets.json';

export class MarginCatalogError extends Error {
  readonly code: 'MARGIN_CATALOG_INVALID' = 'MARGIN_CATALOG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'MarginCatalogError';
  }
}

interface RawTier {
  notional_max_dollars: string | null;
  maintenance_margin_rate_ppm: number;
}
interface RawMarket {
  ticker: string;
  title: string;
  asset_class?: string | null;
  tick_size: string;
  contract_size?: string;
  mark_price: string;
  reference_price?: string;
  maker_fee_rate_ppm: number;
  taker_fee_rate_ppm: number;
  margin_tiers: RawTier[];
  initial_margin_multiplier_ppm?: number;
  portfolio_margin?: boolean;
  funding_interval_seconds?: number;
  funding_cap_ppm?: number;
}
interface RawCatalog {
  markets: RawMarket[];
  liquidation_margin_ratio_ppm?: number;
  queue_entry_margin_ratio_ppm?: number;
  notional_risk_limit_dollars?: string;
  settlement_cycle_seconds?: number;
}

export function loadMarginCatalog(file: string): MarginCatalog {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new MarginCatalogError(`cannot read margin catalog ${file}: ${(error as Error).message}`);
  }
  return parseMarginCatalog(raw);
}

/** Checks and converts the JSON form; every problem names its JSON path. */
export function parseMarginCatalog(value: unknown): MarginCatalog {
  const raw = value as RawCatalog;
  if (typeof raw !== 'object' || raw === null || !Array.isArray(raw.markets) || raw.markets.length === 0) {
    throw new MarginCatalogError('margin catalog: markets must be a non-empty array');
  }
  const seen = new Set<string>();
  const markets = raw.markets.map((market, index) => {
    const path = `markets[${index}]`;
    const fail = (message: string): never => {
      throw new MarginCatalogError(`margin catalog ${path}: ${message}`);
    };
    if (typeof market.ticker !== 'string' || market.ticker === '') fail('ticker must be a non-empty string');
    if (seen.has(market.ticker)) fail(`duplicate ticker ${market.ticker}`);
    seen.add(market.ticker);
    const assetClass = market.asset_class ?? null;
    if (assetClass !== null && !(ASSET_CLASSES as readonly string[]).includes(assetClass)) fail(`asset_class must be one of ${ASSET_CLASSES.join(', ')} or null`);
    let tickSize: Price, markPrice: Price, referencePrice: Price;
    try {
      tickSize = requirePrice(market.tick_size, `${path}.tick_size`);
      markPrice = requirePrice(market.mark_price, `${path}.mark_price`);
      referencePrice = requirePrice(market.reference_price ?? market.mark_price, `${path}.reference_price`);
    } catch (error) {
      return fail((error as Error).message);
    }
    if (tickSize <= 0) fail('tick_size must be positive');
    if (markPrice % tickSize !== 0 || markPrice <= 0) fail('mark_price must be a positive multiple of tick_size');
    if (referencePrice <= 0) fail('reference_price must be positive');
    for (const name of ['maker_fee_rate_ppm', 'taker_fee_rate_ppm'] as const) {
      if (!Number.isSafeInteger(market[name]) || market[name] < 0 || market[name] > 100_000) fail(`${name} must be an integer 0..100000`);
    }
    if (!Array.isArray(market.margin_tiers) || market.margin_tiers.length === 0) fail('margin_tiers must be a non-empty array');
    const tiers: MarginTier[] = market.margin_tiers.map((tier, t) => {
      const rate = tier.maintenance_margin_rate_ppm;
      if (!Number.isSafeInteger(rate) || rate <= 0 || rate > PPM_MAX) fail(`margin_tiers[${t}].maintenance_margin_rate_ppm must be an integer 1..${PPM_MAX}`);
      const last = t === market.margin_tiers.length - 1;
      if (last !== (tier.notional_max_dollars === null)) fail(`margin_tiers[${t}].notional_max_dollars must be null exactly on the last tier`);
      return { notionalMax: tier.notional_max_dollars === null ? null : requireDollars(tier.notional_max_dollars, `${path}.margin_tiers[${t}]`), maintenanceRatePpm: rate };
    });
    const interval = market.funding_interval_seconds ?? 3600;
    if (!Number.isSafeInteger(interval) || interval < 1) fail('funding_interval_seconds must be a positive integer');
    return Object.freeze({
      ticker: market.ticker,
      title: typeof market.title === 'string' ? market.title : market.ticker,
      assetClass: assetClass as AssetClass | null,
      tickSize,
      contractSize: market.contract_size ?? '1.000000',
      markPrice,
      referencePrice,
      makerFeePpm: market.maker_fee_rate_ppm,
      takerFeePpm: market.taker_fee_rate_ppm,
      marginTiers: Object.freeze(tiers),
      initialMarginMultiplierPpm: market.initial_margin_multiplier_ppm ?? 2_000_000,
      portfolioMargin: market.portfolio_margin ?? false,
      fundingIntervalMs: interval * 1000,
      fundingCapPpm: market.funding_cap_ppm ?? 7500,
    } satisfies MarginMarketSpec);
  });
  const cycleSeconds = raw.settlement_cycle_seconds ?? 86_400;
  if (!Number.isSafeInteger(cycleSeconds) || cycleSeconds < 1) throw new MarginCatalogError('margin catalog: settlement_cycle_seconds must be a positive integer');
  return Object.freeze({
    markets: Object.freeze(markets),
    liquidationMarginRatioPpm: raw.liquidation_margin_ratio_ppm ?? 1_000_000,
    queueEntryMarginRatioPpm: raw.queue_entry_margin_ratio_ppm ?? 1_100_000,
    notionalRiskLimit: requireDollars(raw.notional_risk_limit_dollars ?? '5000000.0000', 'notional_risk_limit_dollars'),
    settlementCycleMs: cycleSeconds * 1000,
  });
}

const PPM_MAX = 1_000_000;

/** Maintenance margin rate for a position of `notional` (the tier that contains it). */
export function maintenanceRatePpm(spec: MarginMarketSpec, notional: number): number {
  for (const tier of spec.marginTiers) if (tier.notionalMax === null || notional <= tier.notionalMax) return tier.maintenanceRatePpm;
  return spec.marginTiers[spec.marginTiers.length - 1].maintenanceRatePpm;
}
