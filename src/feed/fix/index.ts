/**
 * The FIX market-data source (KalshiMD): books from MarketDataSnapshotFullRefresh and
 * MarketDataIncrementalRefresh into the feed's BookStore, security status into the market registry.
 */

export { FixMarketData, FIX_SID_BASE, type FixMarketDataListener, type FixMarketDataOptions, type FixMarketDataStats } from './fix-market-data.ts';
