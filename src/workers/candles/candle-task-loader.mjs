/**
 * The file piscina loads in each candle worker. Worker threads do not inherit vitest's transform,
 * nor (Node 20, checked) the hooks `tsx` registered in the main thread even though its flags are in
 * the inherited execArgv, so this plain ESM module registers tsx's loader hooks for the worker
 * itself and then imports the TypeScript task. piscina awaits the default export (the handler).
 * It owns nothing else: the task is candle-task.ts.
 */

import { register } from 'tsx/esm/api';

register();

const task = await import('./candle-task.ts');

export default task.default;
