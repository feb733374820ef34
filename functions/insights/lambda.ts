/**
 * The one bundle of the two DuckDB functions (infra/constructs/duckdb-bundling.ts): the hourly
 * insights check (`check`) and the weekly report (`weeklyReport`; `weeklyReportOrganisations` for many organisations; `checkOrganisations` likewise). One entry, so CDK bundles and
 * stages DuckDB's ~70 MB once for both functions instead of twice; each function names its
 * export as its handler. Importing reads nothing: each handler reads its configuration on its
 * first invocation.
 */
export { handler as check } from './handler.js';
export { handler as weeklyReport } from './weekly/handler.js';
export { organisationsHandler as weeklyReportOrganisations } from './weekly/organisations.js';
export { organisationsCheckHandler as checkOrganisations } from './organisations.js';
