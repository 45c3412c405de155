/**
 * The file piscina loads in each sweep worker. Worker threads do not inherit tsx's hooks (see
 * ../candles/candle-task-loader.mjs), so this plain ESM module registers them and then imports the
 * TypeScript task. It owns nothing else.
 */

import { register } from 'tsx/esm/api';

register();

const task = await import('./sweep-task.ts');

export default task.default;
