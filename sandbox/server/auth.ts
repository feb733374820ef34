/**
 * The sandbox's check of the Authorization header of an API request, as the service does it:
 * a missing or malformed header and an unknown key are 401, an assistant key (`mint_dsc_…`)
 * is 403. The key is compared in constant time.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Answer } from './http.js';

/** The only key the sandbox accepts unless `apiKey` says otherwise. Not a secret. */
export const SANDBOX_API_KEY = 'mint_sandbox_0000000000000000';

/**
 * Checks an Authorization header: the 401/403 answer, or undefined when the key is accepted;
 * `keyIndex` of an accepted header is which key it carried (0: the first).
 */
export type AuthCheck = ((header: string | undefined) => Answer | undefined) & { keyIndex(header: string | undefined): number | undefined };

/**
 * The check of the sandbox whose keys are `apiKey` and `moreKeys` (several organisations, each
 * with its key; a key not among them — one revoked — is refused with 401 as the service does).
 */
export function createAuthCheck(apiKey: string, moreKeys: readonly string[] = []): AuthCheck {
  const validKeys = [apiKey, ...moreKeys].map((key) => Buffer.from(key));
  const bearer = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  const keyIndex = (header: string | undefined): number | undefined => {
    const key = bearer(header);
    if (key === undefined) return undefined;
    const given = Buffer.from(key);
    const index = validKeys.findIndex((valid) => given.length === valid.length && timingSafeEqual(given, valid));
    return index === -1 ? undefined : index;
  };
  const check = (header: string | undefined): Answer | undefined => {
    const key = bearer(header);
    if (key === undefined) {
      return { status: 401, body: { error: 'missing or malformed Authorization header: send "Authorization: Bearer <admin API key>"' } };
    }
    if (key.startsWith('mint_dsc_')) {
      return { status: 403, body: { error: 'assistant API keys (mint_dsc_…) cannot call admin endpoints: use an admin API key' } };
    }
    if (keyIndex(header) === undefined) {
      return { status: 401, body: { error: 'invalid API key: it may have been revoked or expired' } };
    }
    return undefined;
  };
  return Object.assign(check, { keyIndex });
}
