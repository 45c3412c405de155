/**
 * The catalog's tables: each column's name, DuckDB type and unit (docs/capture-and-catalog.md
 * prints this table). Prices, counts and money are fixed-point integers with the unit in the
 * name, as core/units.ts defines them: `_e4` a price in 1/10,000 dollar (Price), `_count_e2` a
 * count in 1/100 contract (Count), `_centicents` money in 1/10,000 dollar (Centicents). Times are
 * integers too: `_us` / `_ms` Unix micro- / milliseconds. Every table ends with the two Hive
 * partition columns, `date` (UTC, YYYY-MM-DD) and `market` (the ticker). Owns the schema only.
 */

export type ColumnType = 'BIGINT' | 'INTEGER' | 'VARCHAR' | 'BOOLEAN';

export interface Column {
  name: string;
  type: ColumnType;
  unit: string;
}

const PARTITION: readonly Column[] = [
  { name: 'date', type: 'VARCHAR', unit: 'UTC date YYYY-MM-DD (partition)' },
  { name: 'market', type: 'VARCHAR', unit: 'market ticker (partition; event ticker for event lifecycle rows)' },
];

const RECEIVED: Column = { name: 'recv_time_us', type: 'BIGINT', unit: 'Unix µs the frame was received (recording start + record time)' };
const SOURCE: Column = { name: 'source', type: 'VARCHAR', unit: 'the recording, journal or backfill the row came from' };

export const TABLES = {
  book_deltas: [
    RECEIVED,
    { name: 'exchange_ts_ms', type: 'BIGINT', unit: 'Unix ms, the exchange\'s ts_ms (null when absent)' },
    { name: 'sid', type: 'INTEGER', unit: 'subscription id' },
    { name: 'seq', type: 'BIGINT', unit: 'sequence number on the sid' },
    { name: 'side', type: 'VARCHAR', unit: "'yes' | 'no' (the level's side as sent)" },
    { name: 'price_e4', type: 'BIGINT', unit: '1/10,000 $: a YES price for yes, a NO price for no' },
    { name: 'delta_count_e2', type: 'BIGINT', unit: 'signed change of the level, 1/100 contract' },
    SOURCE,
  ],
  book_top: [
    { name: 'snapshot_time_us', type: 'BIGINT', unit: 'Unix µs of the cadence tick (receive clock)' },
    { name: 'best_bid_price_e4', type: 'BIGINT', unit: 'best YES bid, 1/10,000 $ (null: none)' },
    { name: 'best_bid_count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'best_ask_price_e4', type: 'BIGINT', unit: 'best YES ask (1 - best NO bid), 1/10,000 $ (null: none)' },
    { name: 'best_ask_count_e2', type: 'BIGINT', unit: '1/100 contract' },
    SOURCE,
  ],
  book_depth: [
    { name: 'snapshot_time_us', type: 'BIGINT', unit: 'Unix µs of the cadence tick (receive clock)' },
    { name: 'side', type: 'VARCHAR', unit: "'bid' | 'ask' in YES terms" },
    { name: 'level', type: 'INTEGER', unit: '0 = best' },
    { name: 'price_e4', type: 'BIGINT', unit: 'YES price, 1/10,000 $' },
    { name: 'count_e2', type: 'BIGINT', unit: '1/100 contract' },
    SOURCE,
  ],
  trades: [
    RECEIVED,
    { name: 'exchange_ts_ms', type: 'BIGINT', unit: 'Unix ms (ts_ms live, created_time backfilled; null when absent)' },
    { name: 'trade_id', type: 'VARCHAR', unit: '' },
    { name: 'yes_price_e4', type: 'BIGINT', unit: '1/10,000 $' },
    { name: 'no_price_e4', type: 'BIGINT', unit: '1/10,000 $ (null when absent)' },
    { name: 'count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'taker_outcome_side', type: 'VARCHAR', unit: "'yes' | 'no'" },
    { name: 'taker_book_side', type: 'VARCHAR', unit: "'bid' | 'ask'" },
    { name: 'is_block_trade', type: 'BOOLEAN', unit: '' },
    SOURCE,
  ],
  lifecycle: [
    RECEIVED,
    { name: 'kind', type: 'VARCHAR', unit: "'market' (market_lifecycle_v2) | 'event' (event_lifecycle)" },
    { name: 'event_type', type: 'VARCHAR', unit: "created, activated, ...; 'event' for event rows" },
    { name: 'event_ticker', type: 'VARCHAR', unit: "'' for market rows" },
    { name: 'open_ts', type: 'BIGINT', unit: 'Unix s (null when absent)' },
    { name: 'close_ts', type: 'BIGINT', unit: 'Unix s (null when absent)' },
    { name: 'result', type: 'VARCHAR', unit: "'' when absent" },
    { name: 'settlement_value_centicents', type: 'BIGINT', unit: '1/10,000 $ (null when absent)' },
    { name: 'price_level_structure', type: 'VARCHAR', unit: 'null when absent' },
    SOURCE,
  ],
  orders: [
    { name: 'created_ms', type: 'BIGINT', unit: 'Unix ms of the intent' },
    { name: 'last_event_ms', type: 'BIGINT', unit: 'Unix ms' },
    { name: 'client_order_id', type: 'VARCHAR', unit: '' },
    { name: 'order_id', type: 'VARCHAR', unit: "'' when never acknowledged" },
    { name: 'side', type: 'VARCHAR', unit: "'bid' | 'ask' (YES)" },
    { name: 'price_e4', type: 'BIGINT', unit: '1/10,000 $' },
    { name: 'total_count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'filled_count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'remaining_count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'state', type: 'VARCHAR', unit: 'the OMS state name' },
    { name: 'subaccount', type: 'INTEGER', unit: '' },
    { name: 'strategy_id', type: 'INTEGER', unit: '' },
    SOURCE,
  ],
  fills: [
    { name: 'ts_ms', type: 'BIGINT', unit: 'Unix ms' },
    { name: 'trade_id', type: 'VARCHAR', unit: '' },
    { name: 'order_id', type: 'VARCHAR', unit: '' },
    { name: 'client_order_id', type: 'VARCHAR', unit: '' },
    { name: 'side', type: 'VARCHAR', unit: "'bid' | 'ask' (YES)" },
    { name: 'price_e4', type: 'BIGINT', unit: '1/10,000 $' },
    { name: 'count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'fee_centicents', type: 'BIGINT', unit: '1/10,000 $' },
    { name: 'is_taker', type: 'BOOLEAN', unit: '' },
    { name: 'subaccount', type: 'INTEGER', unit: '' },
    SOURCE,
  ],
  positions: [
    { name: 'ts_ms', type: 'BIGINT', unit: 'Unix ms of the fill that moved it' },
    { name: 'subaccount', type: 'INTEGER', unit: '' },
    { name: 'position_count_e2', type: 'BIGINT', unit: 'signed YES position after the fill, 1/100 contract' },
    { name: 'trade_id', type: 'VARCHAR', unit: 'the fill' },
    SOURCE,
  ],
  candles: [
    { name: 'end_period_ts', type: 'BIGINT', unit: 'Unix s, end of the period' },
    { name: 'period_minutes', type: 'INTEGER', unit: '1, 60 or 1440' },
    { name: 'open_e4', type: 'BIGINT', unit: 'trade price, 1/10,000 $ (null: no trade)' },
    { name: 'high_e4', type: 'BIGINT', unit: '1/10,000 $ (null: no trade)' },
    { name: 'low_e4', type: 'BIGINT', unit: '1/10,000 $ (null: no trade)' },
    { name: 'close_e4', type: 'BIGINT', unit: '1/10,000 $ (null: no trade)' },
    { name: 'volume_count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'open_interest_count_e2', type: 'BIGINT', unit: '1/100 contract' },
    { name: 'yes_bid_close_e4', type: 'BIGINT', unit: '1/10,000 $' },
    { name: 'yes_ask_close_e4', type: 'BIGINT', unit: '1/10,000 $' },
    SOURCE,
  ],
} as const satisfies Record<string, readonly Column[]>;

export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

/** A row in column order, then date and market. Integers as numbers (safe integers), null for SQL NULL. */
export type Row = (number | string | boolean | null)[];

export function columnsOf(table: TableName): readonly Column[] {
  return [...TABLES[table], ...PARTITION];
}

/** `YYYY-MM-DD` (UTC) of a Unix ms time. */
export function utcDate(unixMs: number): string {
  return new Date(unixMs).toISOString().slice(0, 10);
}
