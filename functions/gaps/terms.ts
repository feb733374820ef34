/**
 * The terms of assistant questions, as topics.ts groups them: a text cleaned as readers' words
 * are shown, NFKC-folded and lower-cased, cut into words (letters, marks and digits; `next.js`,
 * `api-key`, `llms.txt` stay one word; a run of Chinese, Japanese or Korean script is cut into
 * words by `Intl.Segmenter`, these scripts write no space between words), without stop words of
 * the languages readers write in most, the cleaning's placeholders (`[email]`) and one-character
 * words, each word simply stemmed (`webhooks` → `webhook`, `configuring` → `configur`).
 *
 * A `Vocabulary` numbers the terms and remembers each text's terms, so that grouping a day of
 * 200,000 questions, and counting the topics' figures per day after it, read each text once
 * (read.ts keeps one per DuckDB session: a report's gap questions share it).
 */
import { cleanReaderText } from '../shared/reader-text.js';

/**
 * Words that say nothing of a topic: English, French, Spanish, German, Portuguese, Chinese,
 * Japanese and Korean function words and question words, and what the personal-data cleaning
 * leaves (`[email]`, `[phone]`, `[secret]`).
 */
const STOP_WORDS = new Set(
  [
    // English
    'a an and are as at be been but by can could did do does doing done for from get got had has have how i if in into is it its',
    'just me my no not of on or our please should so than that the their them then there these they this those to too us',
    'use using was we were what when where which who why will with would you your yours am any all also about',
    'need want know tell give show make one way ok thanks thank hi hello',
    // French
    'le la les un une des du de et ou est sont je tu il elle nous vous ils elles ce cette ces que qui quoi quel quelle comment',
    'pourquoi pour avec sans dans sur pas ne mon ma mes votre vos notre nos entre au aux en',
    // Spanish
    'el los las unos unas del y o es son yo mi mis tu tus su sus que qué como cómo por para con sin en al lo se',
    // German
    'der die das ein eine einen dem den und oder ist sind ich du er sie es wir ihr wie was warum für mit ohne im auf nicht',
    // Portuguese
    'os um uma do da dos das em no na não com sem por para como',
    // Chinese (as Intl.Segmenter cuts it)
    '如何 怎么 怎样 什么 为什么 哪里 哪个 可以 能否 是否 我们 你们 他们 这个 那个 一个 没有 请问 谢谢 吗 呢 的 了 是 在 我 你 他 她 它 有 和 与 或 把 被 就 都 也 还 要 会 能 对 从 到 这 那 个 请 用 中 上 下 不',
    // Japanese
    '方法 場合 何 なぜ',
    // Korean
    '어떻게 무엇 무엇인가요 왜 어디 어디서 있나요 있습니까 하나요 합니까 하는 방법 방법은 수 있는 없는 주세요 알려주세요',
    // what the cleaning leaves
    'email phone secret link',
  ]
    .join(' ')
    .split(' '),
);

/** Characters of a question cleaned before its words are read (far above any question's length). */
const WHOLE = 100_000;

/** A word: letters, marks and digits, with `.`, `-`, `_` or `'` inside (never at either end). */
const WORD = /[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}._'-]*[\p{L}\p{M}\p{N}])?/gu;

/** Text of printable ASCII alone (what the cleaning leaves of most questions). */
const ASCII = /^[\x20-\x7e]*$/;

/** `WORD` on ASCII in lower case: its letters and digits are `a`–`z` and `0`–`9`, and it has no mark. */
const ASCII_WORD = /[a-z0-9](?:[a-z0-9._'-]*[a-z0-9])?/g;

/** Scripts written without spaces between words (and Hangul, whose words carry particles). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Characters `Intl.Segmenter` is given at once: ICU's dictionary cut of a run of Han grows faster
 * than its length (a 40,000-character run took ten times a 10,000-character one), so a longer run
 * is cut in pieces of this size first — far above any word, and linear time in the run's length.
 */
export const SEGMENT_PIECE = 256;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** A Korean word's case particle (`서명을` → `서명`), when two syllables at least are left. */
const HANGUL_PARTICLE = /(?<=^\p{Script=Hangul}{2,})(?:에서|으로|을|를|이|가|은|는|의|에|로|와|과|도)$/u;

/** Simple stemming: plural and verb endings of English words, case particles of Korean ones (other scripts are kept whole). */
export function stemOf(word: string): string {
  if (HANGUL_PARTICLE.test(word)) return word.replace(HANGUL_PARTICLE, '');
  if (!/^[a-z]+$/.test(word) || word.length <= 3) return word;
  let stem = word;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(?:ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  if (stem.endsWith('ing') && stem.length > 5) stem = stem.slice(0, -3);
  else if (stem.endsWith('ed') && stem.length > 4) stem = stem.slice(0, -2);
  else if (stem.endsWith('e') && stem.length > 4) stem = stem.slice(0, -1);
  // `setting` → `sett` → `set`, as `set`.
  if (/([b-df-hj-np-tv-z])\1$/.test(stem) && !/(?:ll|ss|zz)$/.test(stem)) stem = stem.slice(0, -1);
  return stem;
}

/** The words of a text as readers' words are shown (links defanged, addresses hidden, controls gone), NFKC-folded and lower-cased, stop words and all. */
function rawWordsOf(text: string): string[] {
  // A topic's name is made of these words, and must not rebuild what the cleaning took apart.
  const shown = cleanReaderText(text, WHOLE).text;
  // Printable ASCII: NFKC leaves it as it is, and no script without spaces is in it (most questions: no normalizing pass, a plainer pattern).
  if (ASCII.test(shown)) return shown.toLowerCase().match(ASCII_WORD) ?? [];
  const words = shown.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  return words.some((word) => UNSPACED.test(word)) ? words.flatMap((word) => (UNSPACED.test(word) ? segmentedWords(word) : [word])) : words;
}

/** Runs cut lately, and their words: a day's questions repeat their phrases (`…を設定する方法は`), and each cut costs ICU's dictionary. */
const CUT_RUNS = new Map<string, readonly string[]>();
/** Runs remembered at most (then forgotten all at once): a bound on the memory, whatever the questions. */
const CUT_RUNS_MAX = 20_000;
/** Runs longer than this are not remembered (a hostile single word must not be held). */
const CUT_RUN_LONGEST = 200;

/** The words `Intl.Segmenter` finds in a run of CJK script (and the Latin words glued to it), piece by piece. */
function segmentedWords(run: string): readonly string[] {
  const known = CUT_RUNS.get(run);
  if (known !== undefined) return known;
  const words: string[] = [];
  for (const [start, end] of segmentPieces(run)) {
    for (const { segment, isWordLike } of segmenter.segment(run.slice(start, end))) {
      // The segmenter keeps a word's `.`/`-` apart from ours: the WORD pattern says what a word is.
      if (isWordLike) words.push(...(segment.match(WORD) ?? []));
    }
  }
  if (run.length <= CUT_RUN_LONGEST) {
    if (CUT_RUNS.size >= CUT_RUNS_MAX) CUT_RUNS.clear();
    CUT_RUNS.set(run, words);
  }
  return words;
}

/** The pieces (`[start, end)`) a run is handed to `Intl.Segmenter` in: SEGMENT_PIECE units at most, never half a surrogate pair. */
export function segmentPieces(run: string): [number, number][] {
  const pieces: [number, number][] = [];
  let start = 0;
  while (start < run.length) {
    let end = Math.min(run.length, start + SEGMENT_PIECE);
    const code = run.charCodeAt(end - 1);
    if (end < run.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    pieces.push([start, end]);
    start = end;
  }
  return pieces;
}

/** A word of Hiragana alone: Japanese grammar (particles, endings, auxiliaries), not what a question is about. */
const HIRAGANA_ONLY = /^[\p{Script=Hiragana}\u30fc]+$/u;
/** One Han character: a word in Chinese (`密钥` is cut `密`, `钥`). */
const ONE_HAN = /^\p{Script=Han}$/u;

/** Whether a word is a term: two characters at least (one Han character may be a word), not a stop word nor Hiragana alone. */
function isTerm(word: string): boolean {
  // Two UTF-16 units are one character when they are a surrogate pair.
  const one = word.length < 2 || (word.length === 2 && word.charCodeAt(0) >= 0xd800 && word.charCodeAt(0) <= 0xdbff);
  if (one && !ONE_HAN.test(word)) return false;
  return !STOP_WORDS.has(word) && !HIRAGANA_ONLY.test(word);
}

/** The words of a text as shown in a topic's name, each with its term (NFKC, lower case; stop words and one-character words left out). */
export function wordsOf(text: string): { readonly word: string; readonly term: string }[] {
  const words: { word: string; term: string }[] = [];
  for (const word of rawWordsOf(text)) if (isTerm(word)) words.push({ word, term: stemOf(word) });
  return words;
}

/** A question's terms (a set: a word said twice counts once). */
export function termsOf(text: string): Set<string> {
  return new Set(wordsOf(text).map((w) => w.term));
}

/** Counts work done (tests prove time linear in the input by counting it, not by timing). */
export interface Steps {
  steps: number;
}

/** Texts a vocabulary remembers the terms of at most (the first read): a bound on its memory, whatever the questions. */
const REMEMBERED_TEXTS = 300_000;

/** A text's term ids, ascending, each once. */
export type TermIds = Readonly<ArrayLike<number>> & Iterable<number>;

/** A word a vocabulary read that is no term. */
const NO_TERM = -1;

/** FNV-1a of a string's UTF-16 units, in 30 bits (a small integer to V8: no heap number); the bank's questions are found by it too. */
export function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

/** `array` with room for `length` items at least (doubled; the items kept). */
function roomFor<A extends Int32Array | Uint8Array>(array: A, length: number): A {
  if (length <= array.length) return array;
  const grown = new (array.constructor as new (length: number) => A)(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}

/**
 * Strings numbered 0, 1, 2 … as added, found by their hash: open addressing in one Int32Array
 * (each slot a number, or -1), probed in turn from the hash's slot, each string's hash in a
 * typed column; the table doubles when half full. A day of 200,000 distinct questions has as
 * many one-off words (`ref4fzyo`): two Maps keyed by them held about 15 MB of tables (issue 57).
 */
class StringIndex {
  readonly strings: string[] = [];
  #hashes = new Int32Array(1024);
  #slots = new Int32Array(1024).fill(-1);

  /** The number of `text` (its hash `hash`), or -1. */
  find(text: string, hash: number): number {
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = this.#slots[slot] as number;
      if (at < 0 || (this.#hashes[at] === hash && this.strings[at] === text)) return at;
    }
  }

  /** Numbers `text` (its hash `hash`; not added yet). */
  add(text: string, hash: number): number {
    const at = this.strings.length;
    this.strings.push(text);
    this.#hashes = roomFor(this.#hashes, at + 1);
    this.#hashes[at] = hash;
    if ((at + 1) * 2 > this.#slots.length) {
      this.#slots = new Int32Array(this.#slots.length * 2).fill(-1);
      for (let held = 0; held < at; held += 1) this.#place(this.#hashes[held] as number, held);
    }
    this.#place(hash, at);
    return at;
  }

  #place(hash: number, at: number): void {
    const mask = this.#slots.length - 1;
    let slot = hash & mask;
    while ((this.#slots[slot] as number) >= 0) slot = (slot + 1) & mask;
    this.#slots[slot] = at;
  }
}

/**
 * Terms as numbers, and the terms of each text read (in ascending order, each once), so that
 * the same text is cleaned and cut once however often it is asked about.
 */
export class Vocabulary {
  /** The terms: a term's id is its number. */
  readonly #terms = new StringIndex();
  /** Per term id: 1 when the term read as a word is that term (`ref4fzyo`, `webhook`): most words, held once, as terms. */
  #wordIsTerm = new Uint8Array(1024);
  /** The other words read (each to its term's id, or NO_TERM: a stop word, or one character): a day's questions share most of their words. */
  readonly #words = new StringIndex();
  #wordIds = new Int32Array(1024);
  /** Each text read to its terms, when remembered. */
  readonly #texts: Map<string, TermIds> | undefined;
  /** Where the terms of texts read elsewhere are looked up first (gaps/bank.ts: a session's unanswered questions). */
  #known: ((text: string) => TermIds | undefined) | undefined;

  /** `remember`: keep each text's terms (a report reads the same questions for several figures); a single grouping reads each text once anyway. */
  constructor(
    private readonly counter?: Steps,
    options: { readonly remember?: boolean } = {},
  ) {
    this.#texts = options.remember ? new Map() : undefined;
  }

  /** Distinct terms read so far (ids are 0 … size − 1). */
  get size(): number {
    return this.#terms.strings.length;
  }

  /** The term of an id. */
  term(id: number): string {
    return this.#terms.strings[id] as string;
  }

  /** The id of a term; undefined when no text read so far has it. */
  idOf(term: string): number | undefined {
    const id = this.#terms.find(term, hashOf(term));
    return id < 0 ? undefined : id;
  }

  /** Looks up the terms of texts read already through `known` first (their ids this vocabulary's). */
  knowing(known: (text: string) => TermIds | undefined): void {
    this.#known = known;
  }

  /** The ids of a text's terms, ascending, each once (`termsOf` as numbers). */
  termIdsOf(text: string): TermIds {
    const known = this.#texts?.get(text) ?? this.#known?.(text);
    if (known !== undefined) return known;
    const ids: number[] = [];
    for (const word of rawWordsOf(text)) {
      if (this.counter) this.counter.steps += 1;
      const id = this.#wordId(word);
      if (id !== NO_TERM) ids.push(id);
    }
    ids.sort((a, b) => a - b);
    let n = 0;
    for (let i = 0; i < ids.length; i += 1) if (i === 0 || ids[i] !== ids[i - 1]) ids[n++] = ids[i] as number;
    ids.length = n;
    if (this.#texts !== undefined && this.#texts.size < REMEMBERED_TEXTS) this.#texts.set(text, ids);
    return ids;
  }

  /** The id of a word's term (NO_TERM: none), the word read once. */
  #wordId(word: string): number {
    const hash = hashOf(word);
    const asTerm = this.#terms.find(word, hash);
    if (asTerm >= 0 && this.#wordIsTerm[asTerm] === 1) return asTerm;
    const other = this.#words.find(word, hash);
    if (other >= 0) return this.#wordIds[other] as number;
    const term = isTerm(word) ? stemOf(word) : undefined;
    if (term === word) {
      const id = asTerm >= 0 ? asTerm : this.#internHashed(word, hash);
      this.#wordIsTerm[id] = 1;
      return id;
    }
    const id = term === undefined ? NO_TERM : this.intern(term);
    const at = this.#words.add(word, hash);
    this.#wordIds = roomFor(this.#wordIds, at + 1);
    this.#wordIds[at] = id;
    return id;
  }

  /** The id of a term, given one when new. */
  intern(term: string): number {
    return this.#internHashed(term, hashOf(term));
  }

  #internHashed(term: string, hash: number): number {
    const known = this.#terms.find(term, hash);
    if (known >= 0) return known;
    const id = this.#terms.add(term, hash);
    this.#wordIsTerm = roomFor(this.#wordIsTerm, id + 1);
    return id;
  }
}

/** Whether ascending `ids[from]` … `ids[to − 1]` hold `id` (binary search). */
export function holdsIn(ids: ArrayLike<number>, from: number, to: number, id: number): boolean {
  let low = from;
  let high = to - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = ids[mid] as number;
    if (at === id) return true;
    if (at < id) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}

/** Whether ascending `ids` hold `id` (binary search). */
export function holds(ids: TermIds, id: number): boolean {
  return holdsIn(ids, 0, ids.length, id);
}
