/**
 * The router folder's public surface: the Router (strategy intent -> gate -> OMS -> route, and the
 * OMS's sender and the kill switch) and the probe stamps it takes. Other folders import the router
 * only through this file.
 */

export { Router, completeOwnAmend } from './router.ts';
export type { HeldIntentListener, HoldStats, RouteProbe, RouterOptions } from './router.ts';
export { HeldIntents, HeldKind } from './held-intents.ts';
export type { HeldIntent } from './held-intents.ts';
export { QuoteRouter } from './quote-router.ts';
export type { QuoteRouterOptions } from './quote-router.ts';
