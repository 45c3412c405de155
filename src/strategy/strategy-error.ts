/**
 * The coded error of loading, starting and redeploying strategies (off the hot path). Callers and
 * tests branch on `code`; the message names the strategy id and, for params, each JSON path.
 * This file owns the codes and the class only.
 */

export type StrategyErrorCode =
  | 'STRATEGY_PLUGIN_NOT_FOUND' //   the plugin module could not be imported
  | 'STRATEGY_PLUGIN_INVALID' //     the default export is not { name, paramsSchema, create }, or the schema does not compile
  | 'STRATEGY_PARAMS_INVALID' //     params do not match the plugin's paramsSchema
  | 'STRATEGY_CREATE_FAILED' //      create(params) threw or returned no onBook
  | 'STRATEGY_START_FAILED' //       markets, order group or onStart failed
  | 'STRATEGY_DUPLICATE_ID' //       two entries with one id
  | 'STRATEGY_UNKNOWN_ID'; //        redeploy/stop of an id the host does not run

export const STRATEGY_ERROR_CODES: Readonly<Record<StrategyErrorCode, string>> = Object.freeze({
  STRATEGY_PLUGIN_NOT_FOUND: 'the plugin module could not be imported from its path',
  STRATEGY_PLUGIN_INVALID: 'the module default export is not a plugin { name, paramsSchema, create }, or its schema does not compile',
  STRATEGY_PARAMS_INVALID: 'params do not match the plugin schema; the message lists every violation with its path',
  STRATEGY_CREATE_FAILED: 'the plugin create(params) threw or returned an object without onBook',
  STRATEGY_START_FAILED: 'markets could not be resolved, the order group could not be created, or onStart threw',
  STRATEGY_DUPLICATE_ID: 'two strategies share one id',
  STRATEGY_UNKNOWN_ID: 'no running strategy has this id',
});

export class StrategyError extends Error {
  readonly code: StrategyErrorCode;
  readonly strategyId: string;
  /** One line per problem (params violations), else empty. */
  readonly problems: readonly string[];

  constructor(code: StrategyErrorCode, strategyId: string, message: string, problems: readonly string[] = []) {
    super(problems.length === 0 ? `strategy ${strategyId}: ${message}` : `strategy ${strategyId}: ${message}\n  ${problems.join('\n  ')}`);
    this.name = 'StrategyError';
    this.code = code;
    this.strategyId = strategyId;
    this.problems = problems;
  }
}
