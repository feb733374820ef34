/**
 * The key prefixes of the deployment's one state table: each function's items start with its
 * own prefix, and the infra grants each function exactly its prefix (`dynamodb:LeadingKeys`).
 * (The insights check's `insights#` is in insights/state.ts.)
 */

/** The export's budget ledger, leases and backlog. */
export const EXPORT_KEY_PREFIX = 'export#';

/** The follow-up consumer's request records. */
export const FOLLOWUP_KEY_PREFIX = 'followup#';
