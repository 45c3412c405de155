/**
 * The file piscina loads in each worker of the pool. Worker threads do not inherit vitest's transform,
 * nor (Node 20, checked) the hooks `tsx` registered in the main thread even though its flags are in
 * the inherited execArgv, so this plain ESM module registers tsx's loader hooks for the worker
 * itself and then imports the TypeScript tasks. piscina awaits the default export (the candle
 * batch task) and calls the named ones when a run names them: `candleSeries` (the runtime's live
 * candlesticks, candle-series-task.ts) and `portfolioRisk` (portfolio/portfolio-task.ts).
 * It owns nothing else.
 */

import { register } from 'tsx/esm/api';

register();

const task = await import('./candle-task.ts');
const series = await import('./candle-series-task.ts');
const portfolio = await import('../portfolio/portfolio-task.ts');

export default task.default;
export const candleSeries = series.default;
export const portfolioRisk = portfolio.default;
