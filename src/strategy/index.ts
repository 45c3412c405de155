/**
 * The strategy folder's public surface: the plugin contract (Strategy, StrategyPlugin, views,
 * OrderFlags), the StrategyContext plugins act through, the plugin loader and the host that runs
 * them, and the ports the runtime implements. Plugins import only from this file; other folders too.
 * Strategy code never talks to the network: its only way to an order is the context, and the
 * context's only way is OrderPort.submit (risk gate, then OMS).
 */

export { OrderFlags, definePlugin } from './strategy.ts';
export type { BudgetView, HeldIntentView, CandleSeriesView, CandleView, ExitTriggerSpec, FillView, LifecycleView, OrderView, ParamsSchema, QuoteStatus, QuoteView, RfqView, Strategy, StrategyBook, StrategyPlugin, TradeView } from './strategy.ts';
export { OrderState, ORDER_STATE_HELD, isHeldOrder, isLiveOrder, isPendingOrder, isRestingOrder } from './order-states.ts';
export { BoundStrategyContext } from './strategy-context.ts';
export type { ContextBinding, StrategyContext } from './strategy-context.ts';
export { loadPlugin, pluginUrl, validateParams } from './plugin-loader.ts';
export type { LoadOptions, LoadedPlugin, StrategyEntry } from './plugin-loader.ts';
export { STRATEGY_HOST_DEFAULTS, StrategyHost, loadEntries } from './strategy-host.ts';
export type { DeploymentStatus, DeploymentSummary, StrategyHostOptions } from './strategy-host.ts';
export { STRATEGY_ERROR_CODES, StrategyError } from './strategy-error.ts';
export type { StrategyErrorCode } from './strategy-error.ts';
export type { CandlePort, ExitTriggerAnswer, MarketPort, OrderGroupPort, OrderPort, QuotePort, StrategyHostPorts, TriggerPort } from './ports.ts';
// Re-exported so plugins need one import: deny codes, units and sides they use in every call.
export { Deny, DENY_NAMES, denyName } from '../risk/index.ts';
export { PRICE_INVALID, PRICE_ONE, COUNT_INVALID, asCount, asPrice, formatCount, formatPrice, requireCount, requirePrice } from '../core/index.ts';
export type { BookSide, Count, LevelGrid, Price, PriceGrid } from '../core/index.ts';
