/** The clearing-member API client: credential, typed client, detail pager, report. */
export { ClearingClient, CLEARING_CLIENT_DEFAULTS, DETAIL_PAGE_LIMIT_MAX, type ClearingClientOptions } from './clearing-client.ts';
export { ClearingError, CLEARING_ERROR_CODES, type ClearingErrorCode } from './clearing-error.ts';
export { ClearingCredential, parseCredentialText, readCredentialFile, type CredentialFile } from './credential.ts';
export { completeObligation, readAllDetails, readCompleteObligations, PAGER_DEFAULTS, type CompleteObligation, type PagerOptions } from './detail-pager.ts';
export { parseExactJson, JsonDecimal, JsonSyntaxError, type ExactJson } from './exact-json.ts';
export { DETAIL_ARRAYS, type DetailArray, type Obligation, type SettlementDetail, type MaintenanceMarginDetail, type FundingPaymentDetail, type FundingEstimate } from './obligations.ts';
export { totalsOf, formatDollars, renderCsv, renderTable, CSV_COLUMNS, type ObligationTotals } from './obligation-report.ts';
