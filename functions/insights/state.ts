/**
 * The insights' documents in the deployment's state table all start with this prefix (never the
 * export's `export#…` nor the follow-ups' `followup#…`): the infra grants the insights check
 * exactly these items.
 */
export const INSIGHTS_KEY_PREFIX = 'insights#';
