/** The Margin exchange engine's public surface (simulator). */
export { MarginEngine, type MarginEngineListener, CONTRACT, accountKey, ERR_MARKET_NOT_FOUND, ERR_ORDER_NOT_FOUND, type CreateMarginOrder, type ExecutionSummary } from './margin-engine.ts';
export { loadMarginCatalog, parseMarginCatalog, maintenanceRatePpm, DEFAULT_MARGIN_CATALOG_FILE, ASSET_CLASSES, MarginCatalogError, type MarginCatalog, type MarginMarketSpec, type AssetClass } from './catalog.ts';
export { isMarginError, marginError, type MarginError, type MarginOrderRecord, type AccountRecord, type PositionRecord, type MarketState, type MarginTradeRecord, type MarginFillRecord, type TimeInForce as MarginTimeInForce, type SelfTradePrevention as MarginSelfTradePrevention } from './records.ts';
export * as marginRender from './render.ts';
export { ppmToNumber, PPM } from './arith.ts';
export { ExitTriggers, CROSS_BRACKETS_MAX, TERMINAL_TRIGGERS_RETAINED, type ExitTriggerRecord, type SetTriggerRequest, type PositionSlot, type TriggerKind, type TriggerSlot } from './triggers.ts';
export { MarginOrderGroups, MARGIN_EXCHANGE_INDEX, type MarginOrderGroup, type MarginOrderGroupEvent } from './order-groups.ts';
export { MarginBookLevels, type LevelChange } from './book-levels.ts';
