/**
 * Exchange and account routes: status (with exchange_index_statuses), schedule, user data
 * timestamp (rest.md §6), API limits and endpoint costs (rest.md §9). The schedule is a fixed
 * "always open" week with no maintenance windows (the simulator has no trading hours; README).
 * This file never changes exchange state.
 */

import { exchangeStatusToJson } from '../../../engine/index.ts';
import { API_PREFIX, DEFAULT_COST, NON_DEFAULT_COSTS, TIER_BUDGETS } from '../../../rate-limit/index.ts';
import { jsonReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';

const ALL_DAY = [{ open_time: '00:00', close_time: '23:59' }];
const SCHEDULE_BODY = JSON.stringify({
  schedule: {
    standard_hours: [
      {
        start_time: '2020-01-01T00:00:00Z',
        end_time: '2100-01-01T00:00:00Z',
        monday: ALL_DAY,
        tuesday: ALL_DAY,
        wednesday: ALL_DAY,
        thursday: ALL_DAY,
        friday: ALL_DAY,
        saturday: ALL_DAY,
        sunday: ALL_DAY,
      },
    ],
    maintenance_windows: [],
  },
});

const ENDPOINT_COSTS_BODY = JSON.stringify({
  default_cost: DEFAULT_COST,
  endpoint_costs: NON_DEFAULT_COSTS.map((entry) => ({ method: entry.method, path: API_PREFIX + entry.path, cost: entry.cost })),
});

function getStatus(ctx: RestContext): RestReply {
  return jsonReply(200, exchangeStatusToJson(ctx.services.engine.exchangeStatus()));
}

function getSchedule(): RestReply {
  return { status: 200, body: SCHEDULE_BODY };
}

function getUserDataTimestamp(ctx: RestContext): RestReply {
  // The sim's reads are never stale: user data is current as of now.
  return jsonReply(200, { as_of_time: new Date(ctx.services.now()).toISOString() });
}

function getLimits(ctx: RestContext): RestReply {
  const key = ctx.key!;
  const budget = TIER_BUDGETS[key.tier];
  return jsonReply(200, {
    usage_tier: key.tier,
    read: { refill_rate: budget.read.refillPerSecond, bucket_capacity: budget.read.capacity },
    write: { refill_rate: budget.write.refillPerSecond, bucket_capacity: budget.write.capacity },
    // Tiers above Basic are backed by a grant (interface-spec: Account limits); the sim's are manual.
    grants: key.tier === 'basic' ? [] : [{ exchange_instance: 'event_contract', level: key.tier, source: 'manual' }],
  });
}

function getEndpointCosts(): RestReply {
  return { status: 200, body: ENDPOINT_COSTS_BODY };
}

export const EXCHANGE_ACCOUNT_ROUTES: readonly RouteDef[] = [
  route('GET', '/exchange/status', { auth: false }, getStatus),
  route('GET', '/exchange/schedule', { auth: false }, getSchedule),
  route('GET', '/exchange/user_data_timestamp', { auth: false }, getUserDataTimestamp),
  route('GET', '/account/limits', { auth: true }, getLimits),
  route('GET', '/account/endpoint_costs', { auth: false }, getEndpointCosts),
];
