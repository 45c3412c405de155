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
import { ACCOUNT_KEY_ROUTES } from './account-keys.ts';
import { TRANSFER_ROUTES } from './transfers.ts';
import { FCM_ROUTES } from './fcm.ts';
import { BLOCK_TRADE_ROUTES } from './block-trades.ts';
import { LIVE_DATA_ROUTES } from './live-data.ts';
import { INCENTIVE_ROUTES } from './incentives.ts';
import { REMOVED_ROUTES } from './removed.ts';
import { MARGIN_EXTRA_ROUTES } from './margin-extra.ts';

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
  ...ACCOUNT_KEY_ROUTES,
  ...TRANSFER_ROUTES,
  ...FCM_ROUTES,
  ...BLOCK_TRADE_ROUTES,
  ...LIVE_DATA_ROUTES,
  ...INCENTIVE_ROUTES,
  ...REMOVED_ROUTES,
  ...MARGIN_EXTRA_ROUTES,
];
