/**
 * Every REST route the simulator serves, in one list for the router.
 */

import type { RouteDef } from '../route.ts';
import { CANDLESTICK_ROUTES } from './candlesticks.ts';
import { COMMUNICATIONS_ROUTES } from './communications.ts';
import { EXCHANGE_ACCOUNT_ROUTES } from './exchange-account.ts';
import { HISTORICAL_ROUTES } from './historical.ts';
import { MARKET_DATA_ROUTES } from './market-data.ts';
import { MULTIVARIATE_ROUTES } from './multivariate.ts';
import { ORDER_GROUP_ROUTES } from './order-groups.ts';
import { ORDER_ROUTES } from './orders.ts';
import { PORTFOLIO_ROUTES } from './portfolio.ts';
import { MARGIN_MARKET_ROUTES } from './margin-market.ts';
import { MARGIN_ORDER_ROUTES } from './margin-orders.ts';
import { MARGIN_TRIGGER_ROUTES } from './margin-triggers.ts';

export const ALL_ROUTES: readonly RouteDef[] = [
  ...MARKET_DATA_ROUTES,
  ...CANDLESTICK_ROUTES,
  ...HISTORICAL_ROUTES,
  ...EXCHANGE_ACCOUNT_ROUTES,
  ...ORDER_ROUTES,
  ...PORTFOLIO_ROUTES,
  ...ORDER_GROUP_ROUTES,
  ...COMMUNICATIONS_ROUTES,
  ...MULTIVARIATE_ROUTES,
  ...MARGIN_MARKET_ROUTES,
  ...MARGIN_ORDER_ROUTES,
  ...MARGIN_TRIGGER_ROUTES,
];
