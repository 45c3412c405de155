/** The clearing-member API of the simulator: credentials, obligations, and its server. */
export { ClearingCredentials, ClearingAuthFailure, type ClearingCredential, type ClearingPermission } from './credentials.ts';
export { obligationsOf, fundingEstimateOf, INLINE_DETAIL_ROWS_MAX, type Obligation } from './obligations.ts';
export { ClearingServer, CLEARING_PREFIX } from './clearing-server.ts';
export { loadOrCreateDemoClearingCredential, DEMO_CLEARING_CREDENTIAL_FILE, type DemoClearingCredential } from './demo-credential.ts';
export { ObligationBacklog } from './backlog.ts';
export { demoObligations, loadDemoObligations, DEMO_CYCLES, DEMO_WIDE_SUBTRADERS, type DemoMarket } from './demo-obligations.ts';
