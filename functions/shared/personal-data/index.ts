/**
 * Personal data, the room's face: what a column's policy (warehouse/column-policy.ts,
 * docs/privacy.md) applies to what readers typed or left, and the key it hashes with.
 *
 * - detect (detect.ts, on the copy fold.ts makes): where e-mail addresses, phone numbers and
 *   secret-looking tokens are, in every written form — NFKC (`＠` `﹫` are `@`, full-width
 *   letters and digits ASCII), `。` `｡` as `.`, percent-escapes and character references
 *   decoded, default-ignorable code points gone. One pass whose every step is bounded: linear
 *   in the text (a 1 MB text in well under 50 ms, whatever it holds). The same detector serves
 *   the lake, the report, the terminal and prompts;
 * - mask (mask.ts): `maskText` (addresses → `[email]`, phone numbers → `[phone]`, API keys,
 *   bearer tokens and `password=…`-like values → `[secret]`, every other word kept),
 *   `maskPath` (the `path` policy: a page path or URL without its query string and fragment,
 *   each segment that holds such a value replaced by its mask), `maskDeep`;
 * - identity (identity.ts): one value per person (`identityOf`) and its keyed hash (`hmacOf`) —
 *   the same person has the same value on every day and in every project, so counting and
 *   joining still work, and a dictionary of addresses is no use without the key; an
 *   organisation's own key (`organisationKey`);
 * - the key (key.ts): where it comes from. It never leaves this process: manifests and erasure
 *   records name its `keyIdOf`.
 */
export { foldForDetection, type FoldedText } from './fold.js';
export { holdsPersonalData, MASKS, maskDeep, maskPath, maskText } from './mask.js';
export {
  hmacOf,
  identityOf,
  isEmailAddress,
  keyIdOf,
  legacyHmacOf,
  MIN_KEY_LENGTH,
  organisationKey,
  validatePersonalDataKey,
} from './identity.js';
export {
  createPersonalDataKeySource,
  fixedPersonalDataKey,
  KEY_FILE_NAME,
  keyFor,
  type PersonalDataKey,
  type PersonalDataKeyOptions,
  type PersonalDataKeySource,
} from './key.js';
