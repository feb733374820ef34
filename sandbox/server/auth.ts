/**
 * The sandbox's check of the Authorization header of an API request, as the service does it:
 * a missing or malformed header and an unknown key are 401, an assistant key (`mint_dsc_…`)
 * is 403. The key is compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Answer } from './http.js';

/** The only key the sandbox accepts unless `apiKey` says otherwise. Not a secret. */
export const SANDBOX_API_KEY = 'mint_sandbox_0000000000000000';

/** Checks an Authorization header: the 401/403 answer, or undefined when the key is accepted. */
export type AuthCheck = (header: string | undefined) => Answer | undefined;

/** The check of the sandbox whose only key is `apiKey`. */
export function createAuthCheck(apiKey: string): AuthCheck {
  const validKey = Buffer.from(apiKey);
  return (header) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) {
      return { status: 401, body: { error: 'missing or malformed Authorization header: send "Authorization: Bearer <admin API key>"' } };
    }
    const key = match[1] as string;
    if (key.startsWith('mint_dsc_')) {
      return { status: 403, body: { error: 'assistant API keys (mint_dsc_…) cannot call admin endpoints: use an admin API key' } };
    }
    const given = Buffer.from(key);
    if (given.length !== validKey.length || !timingSafeEqual(given, validKey)) {
      return { status: 401, body: { error: 'invalid API key: it may have been revoked or expired' } };
    }
    return undefined;
  };
}
