/**
 * Topics of assistant questions, by their words: no model, no network, the same topics for the
 * same questions on every run.
 *
 * A question's terms: terms.ts (its words cleaned, NFKC-folded, lower-cased, CJK cut by
 * `Intl.Segmenter`, stop words out, simply stemmed).
 *
 * Topics are drawn greedily: the term of the most unanswered questions not yet in a topic seeds
 * one; its key terms are the seed and the terms every one of those questions shares (up to
 * three, the most frequent first). A topic holds every question whose terms include all its key
 * terms — so its key alone says which questions it holds (`inTopic`), on any day and in any
 * period, and a question may fall in two topics (it counts in both). At most `MAX_TOPICS` per
 * project: questions in no topic after them — the least asked — are counted in `left`, not
 * listed as gaps.
 *
 * Linear time: each text is read once (a `Vocabulary`), each question's terms are visited a
 * bounded number of times — when counted, when the question joins a topic's seed's members and
 * leaves the questions still to place, when a topic's key is looked up in the postings of its
 * seed —, and the next seed comes off a heap whose entries are pushed once per term and again
 * only when one comes up with a weight it lost, never by sorting every term each round (issue 57: 35 s for
 * 200,000 distinct questions; 54 s for 400 single words of 50,000 characters, each round
 * comparing the long words again).
 */

import { holds, holdsIn, type Steps, type TermIds, Vocabulary, wordsOf } from './terms.js';

/** Topics drawn per project at most (the least asked questions after them are not listed). */
export const MAX_TOPICS = 100;
/** Key terms of a topic at most. */
export const MAX_KEY_TERMS = 3;
/** Questions a topic's prompt quotes at most (its most asked, distinct). */
export const TOPIC_EXAMPLES = 5;

/** Whether a question with `terms` belongs to the topic of `key` (it has every key term). */
export function inTopic(terms: ReadonlySet<string>, key: readonly string[]): boolean {
  return key.length > 0 && key.every((term) => terms.has(term));
}

/** A topic's key as the gap's id hashes it: its terms in code-point order, one space apart. */
export function topicKeyOf(terms: readonly string[]): string {
  return [...terms].sort().join(' ');
}

/** The terms of a topic's key (`topicKeyOf`'s inverse). */
export function termsOfKey(key: string): string[] {
  return key.split(' ').filter((term) => term !== '');
}

/** One question of a period: its text as last asked, and how often it went unanswered. */
export interface AskedQuestion {
  /** The text as last asked (shown, quoted in prompts). */
  readonly text: string;
  /** The text its terms are read from, when not `text`: read.ts gives the question as the SQL folds it, the text its figures per day read too (one reading per question). */
  readonly terms?: string;
  readonly unanswered: number;
}

export interface Topic {
  /** Key terms, in code-point order (`topicKeyOf` joins them). */
  readonly terms: readonly string[];
  /** The key terms as readers wrote them, in the order of the topic's most asked question (`return 401`). */
  readonly name: string;
  /** Its unanswered questions, the most unanswered first (then by text): distinct questions (sorted when first read). */
  readonly questions: readonly AskedQuestion[];
  /** How many questions it holds (`questions.length`, without sorting them). */
  readonly size: number;
  /** Its first `TOPIC_EXAMPLES` questions (of `questions`). */
  readonly examples: readonly AskedQuestion[];
  /** Times its questions went unanswered. */
  readonly unanswered: number;
}

export interface Topics {
  readonly topics: readonly Topic[];
  /** Unanswered questions in no listed topic (no word to group by, or after MAX_TOPICS), and how often they went unanswered. */
  readonly left: { readonly questions: number; readonly unanswered: number };
}

/** The same question: its text NFKC-folded, lower-cased, runs of spaces as one, no space or ?!. at either end. */
export function sameQuestion(text: string, counter?: Steps): string {
  const folded = text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ');
  // Trimmed by hand: `/^[\s?!.]+|[\s?!.]+$/` tried its second branch at every character of a run
  // inside the text (`a…………b`), quadratic in the run's length (issue 57).
  let [start, end] = [0, folded.length];
  while (start < end && ENDS.has(folded.charCodeAt(start))) start += 1;
  while (end > start && ENDS.has(folded.charCodeAt(end - 1))) end -= 1;
  if (counter) counter.steps += start + (folded.length - end) + 2;
  return folded.slice(start, end);
}

/** What `sameQuestion` trims at either end once spaces are one ' ': a space, ?, ! and . */
const ENDS = new Set([0x20, 0x3f, 0x21, 0x2e]);

/** What grouping may be given: the vocabulary of the texts (shared with the figures read after), a step counter. */
export interface GroupOptions {
  readonly vocabulary?: Vocabulary;
  readonly steps?: Steps;
}

/** Each term's weight among the questions still to place (by term id): times unanswered, then questions. */
interface Weights {
  readonly unanswered: Float64Array;
  readonly questions: Uint32Array;
}

/**
 * Questions with their terms packed in one array (how a day of 200,000 questions is held: no
 * array per question): question i's term ids, ascending and each once, are `terms[from(i)]` …
 * `terms[to(i) − 1]`.
 */
export interface PackedQuestions {
  /** Questions, each left unanswered at least once. */
  readonly size: number;
  readonly terms: Uint32Array;
  from(i: number): number;
  to(i: number): number;
  /** Times question i went unanswered (more than 0). */
  unanswered(i: number): number;
  /** Question i's text as last asked (shown; the topics' order breaks ties by it). */
  text(i: number): string;
  /** Question i as a topic lists it. */
  question(i: number): AskedQuestion;
}

/** The topics of one project's questions (`questions` distinct by `sameQuestion`). */
export function groupTopics(questions: readonly AskedQuestion[], maxTopics = MAX_TOPICS, options: GroupOptions = {}): Topics {
  const counter = options.steps ?? { steps: 0 };
  const vocabulary = options.vocabulary ?? new Vocabulary(counter);
  // The questions to group: left unanswered at least once (a question without a word to group by is left over).
  const asked = questions.filter((question) => question.unanswered > 0);
  const starts = new Uint32Array(asked.length + 1);
  const ids: number[] = [];
  for (const [i, question] of asked.entries()) {
    for (const id of vocabulary.termIdsOf(question.terms ?? question.text)) ids.push(id);
    starts[i + 1] = ids.length;
  }
  const packed: PackedQuestions = {
    size: asked.length,
    terms: Uint32Array.from(ids),
    from: (i) => starts[i] as number,
    to: (i) => starts[i + 1] as number,
    unanswered: (i) => (asked[i] as AskedQuestion).unanswered,
    text: (i) => (asked[i] as AskedQuestion).text,
    question: (i) => asked[i] as AskedQuestion,
  };
  return groupPacked(packed, vocabulary, maxTopics, counter);
}

/** `groupTopics` of questions whose terms are read already (`packed`, ids of `vocabulary`). */
export function groupPacked(packed: PackedQuestions, vocabulary: Vocabulary, maxTopics = MAX_TOPICS, counter: Steps = { steps: 0 }): Topics {
  // The questions with a term, in their order (never sorted all: a topic's are, `topicOf`).
  // `placed[p]`: the question of place p; its terms are `pool[from(p)]` … `pool[to(p) − 1]`
  // (the places ascend, so every pass below reads the pool front to back).
  const order: number[] = [];
  for (let i = 0; i < packed.size; i += 1) if (packed.to(i) > packed.from(i)) order.push(i);
  const placed = Uint32Array.from(order);
  const [starts, ends] = [new Uint32Array(placed.length), new Uint32Array(placed.length)];
  const placedCounts = new Float64Array(placed.length);
  for (let p = 0; p < placed.length; p += 1) {
    const question = placed[p] as number;
    starts[p] = packed.from(question);
    ends[p] = packed.to(question);
    placedCounts[p] = packed.unanswered(question);
  }
  const pool = packed.terms;
  const from = (p: number) => starts[p] as number;
  const to = (p: number) => ends[p] as number;
  const size = vocabulary.size;
  const postings = postingsOf(placed.length, from, to, pool, size, counter);
  const weights: Weights = { unanswered: new Float64Array(size), questions: new Uint32Array(size) };
  for (let p = 0; p < placed.length; p += 1) {
    const unanswered = placedCounts[p] as number;
    for (let k = from(p); k < to(p); k += 1) {
      const term = pool[k] as number;
      weights.unanswered[term] = (weights.unanswered[term] as number) + unanswered;
      weights.questions[term] = (weights.questions[term] as number) + 1;
    }
  }
  const heavier = (a: number, b: number) => {
    counter.steps += 1;
    const [ta, tb] = [vocabulary.term(a), vocabulary.term(b)];
    return (
      (weights.unanswered[b] as number) - (weights.unanswered[a] as number) ||
      (weights.questions[b] as number) - (weights.questions[a] as number) ||
      (ta < tb ? -1 : ta > tb ? 1 : 0)
    );
  };
  const heap = new SeedHeap(vocabulary, counter, size);
  for (let term = 0; term < size; term += 1) {
    if ((weights.questions[term] as number) > 0) heap.push(term, weights.unanswered[term] as number, weights.questions[term] as number);
  }
  const left = new Uint8Array(placed.length).fill(1);
  const shares = new Uint32Array(size);
  const keys: number[][] = [];
  // Once every question is in a topic the terms left weigh nothing: the heap is not drained.
  let toPlace = placed.length;
  while (keys.length < maxTopics && toPlace > 0) {
    const seed = heap.pop(weights);
    if (seed === undefined) break;
    const members = (postings.of(seed) ?? []).filter((p) => left[p] === 1);
    // The terms every member shares: counted over the members' terms (each member is counted in one round only: it leaves after).
    const shared: number[] = [];
    for (const p of members) {
      for (let k = from(p); k < to(p); k += 1) {
        const term = pool[k] as number;
        counter.steps += 1;
        shares[term] = (shares[term] ?? 0) + 1;
        if (shares[term] === members.length && term !== seed) shared.push(term);
      }
    }
    for (const p of members) for (let k = from(p); k < to(p); k += 1) shares[pool[k] as number] = 0;
    keys.push([seed, ...shared.sort(heavier).slice(0, MAX_KEY_TERMS - 1)]);
    toPlace -= members.length;
    for (const p of members) {
      left[p] = 0;
      const unanswered = placedCounts[p] as number;
      for (let k = from(p); k < to(p); k += 1) {
        const term = pool[k] as number;
        counter.steps += 1;
        weights.unanswered[term] = (weights.unanswered[term] as number) - unanswered;
        weights.questions[term] = (weights.questions[term] as number) - 1;
      }
    }
  }
  const inSome = new Uint8Array(placed.length);
  const topics = keys.map((key) => topicOf({ packed, placed, placedCounts, pool, from, to, postings }, key, inSome, vocabulary, counter));
  let [questionsLeft, unansweredLeft] = [0, 0];
  for (let i = 0; i < packed.size; i += 1) [questionsLeft, unansweredLeft] = [questionsLeft + 1, unansweredLeft + packed.unanswered(i)];
  for (let p = 0; p < placed.length; p += 1) {
    if (inSome[p] === 1) [questionsLeft, unansweredLeft] = [questionsLeft - 1, unansweredLeft - (placedCounts[p] as number)];
  }
  return { topics, left: { questions: questionsLeft, unanswered: unansweredLeft } };
}

/** For each term, the places (`placed`' indices) of the questions that hold it: one array for all, cut by offsets. */
function postingsOf(
  count: number,
  from: (p: number) => number,
  to: (p: number) => number,
  pool: Uint32Array,
  terms: number,
  counter: Steps,
): { of(term: number): Uint32Array | undefined } {
  const starts = new Uint32Array(terms + 1);
  for (let p = 0; p < count; p += 1) for (let k = from(p); k < to(p); k += 1) starts[(pool[k] as number) + 1] = (starts[(pool[k] as number) + 1] ?? 0) + 1;
  for (let t = 0; t < terms; t += 1) starts[t + 1] = (starts[t + 1] ?? 0) + (starts[t] ?? 0);
  const filled = starts.slice(0, terms);
  const all = new Uint32Array(starts[terms] ?? 0);
  for (let p = 0; p < count; p += 1) {
    for (let k = from(p); k < to(p); k += 1) {
      const term = pool[k] as number;
      counter.steps += 1;
      all[filled[term] as number] = p;
      filled[term] = (filled[term] as number) + 1;
    }
  }
  return { of: (term) => (term < terms ? all.subarray(starts[term], starts[term + 1]) : undefined) };
}

/**
 * The next seed: the term of the most unanswered questions still to place (then of the most
 * questions, then the first in code-point order). Each term is pushed once, and again only when
 * it comes up with a weight it no longer has (`pop`).
 */
class SeedHeap {
  // Entries in three typed arrays (no object per term: a day of 200,000 questions has as many terms).
  readonly #terms: Uint32Array;
  readonly #unanswered: Float64Array;
  readonly #questions: Uint32Array;
  #length = 0;

  /** `capacity`: the terms pushed at most (one entry per term is ever in the heap). */
  constructor(
    private readonly vocabulary: Vocabulary,
    private readonly counter: Steps,
    capacity: number,
  ) {
    this.#terms = new Uint32Array(capacity);
    this.#unanswered = new Float64Array(capacity);
    this.#questions = new Uint32Array(capacity);
  }

  push(term: number, unanswered: number, questions: number): void {
    let i = this.#length;
    this.#length += 1;
    this.#set(i, term, unanswered, questions);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /**
   * The heaviest term now. Weights only fall, so an entry's weight is at least its term's: an
   * entry that is no longer its term's weight goes back in with the weight it has now, and the
   * first entry that is still right is the heaviest (every other entry is an upper bound).
   */
  pop(weights: Weights): number | undefined {
    for (;;) {
      if (this.#length === 0) return undefined;
      const [term, entryUnanswered, entryQuestions] = [this.#terms[0] as number, this.#unanswered[0] as number, this.#questions[0] as number];
      this.#take();
      const [unanswered, questions] = [weights.unanswered[term] as number, weights.questions[term] as number];
      if (questions === 0) continue;
      if (unanswered === entryUnanswered && questions === entryQuestions) return term;
      this.push(term, unanswered, questions);
    }
  }

  /** Takes the top entry off. */
  #take(): void {
    this.#length -= 1;
    const last = this.#length;
    if (last === 0) return;
    this.#set(0, this.#terms[last] as number, this.#unanswered[last] as number, this.#questions[last] as number);
    let i = 0;
    for (;;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let best = i;
      if (l < last && this.#before(l, best)) best = l;
      if (r < last && this.#before(r, best)) best = r;
      if (best === i) return;
      this.#swap(i, best);
      i = best;
    }
  }

  #set(i: number, term: number, unanswered: number, questions: number): void {
    this.#terms[i] = term;
    this.#unanswered[i] = unanswered;
    this.#questions[i] = questions;
  }

  #before(i: number, j: number): boolean {
    this.counter.steps += 1;
    const [ua, ub] = [this.#unanswered[i] as number, this.#unanswered[j] as number];
    if (ua !== ub) return ua > ub;
    const [qa, qb] = [this.#questions[i] as number, this.#questions[j] as number];
    if (qa !== qb) return qa > qb;
    return this.vocabulary.term(this.#terms[i] as number) < this.vocabulary.term(this.#terms[j] as number);
  }

  #swap(i: number, j: number): void {
    const [term, unanswered, questions] = [this.#terms[i] as number, this.#unanswered[i] as number, this.#questions[i] as number];
    this.#set(i, this.#terms[j] as number, this.#unanswered[j] as number, this.#questions[j] as number);
    this.#set(j, term, unanswered, questions);
  }
}

/** The topic of a key: every question with all its terms, found among the questions of its seed (every one of them holds the seed). */
function topicOf(
  places: {
    readonly packed: PackedQuestions;
    readonly placed: Uint32Array;
    readonly placedCounts: Float64Array;
    readonly pool: Uint32Array;
    from(p: number): number;
    to(p: number): number;
    readonly postings: { of(term: number): Uint32Array | undefined };
  },
  key: readonly number[],
  inSome: Uint8Array,
  vocabulary: Vocabulary,
  counter: Steps,
): Topic {
  const { packed, placed, placedCounts, pool, from, to, postings } = places;
  const [seed, ...rest] = key as [number, ...number[]];
  const held: number[] = [];
  let unanswered = 0;
  for (const p of postings.of(seed) ?? []) {
    counter.steps += 1;
    if (!rest.every((term) => holdsIn(pool, from(p), to(p), term))) continue;
    held.push(p);
    inSome[p] = 1;
    unanswered += placedCounts[p] as number;
  }
  // A topic's order: the most unanswered first, then by text, then as given.
  const before = (a: number, b: number): number => {
    const [ta, tb] = [packed.text(placed[a] as number), packed.text(placed[b] as number)];
    return (placedCounts[b] as number) - (placedCounts[a] as number) || (ta < tb ? -1 : ta > tb ? 1 : 0) || a - b;
  };
  // Its first questions picked in one pass (a topic of 100,000 questions is not sorted to quote five).
  const first: number[] = [];
  for (const p of held) {
    if (first.length === TOPIC_EXAMPLES && before(p, first[TOPIC_EXAMPLES - 1] as number) >= 0) continue;
    let i = Math.min(first.length, TOPIC_EXAMPLES - 1);
    first[i] = p;
    for (; i > 0 && before(p, first[i - 1] as number) < 0; i -= 1) [first[i], first[i - 1]] = [first[i - 1] as number, p];
  }
  const question = (p: number) => packed.question(placed[p] as number);
  const examples = first.map(question);
  let all: AskedQuestion[] | undefined;
  const terms = key.map((id) => vocabulary.term(id));
  return {
    terms: [...terms].sort(),
    name: nameOf(examples[0]?.text ?? '', terms),
    size: held.length,
    examples,
    get questions(): readonly AskedQuestion[] {
      all ??= [...held].sort(before).map(question);
      return all;
    },
    unanswered,
  };
}

/** The key terms as written in `text` (each once, in its order); a term it lacks is added as is. */
function nameOf(text: string, key: readonly string[]): string {
  const shown: string[] = [];
  const found = new Set<string>();
  for (const { word, term } of wordsOf(text)) {
    if (!key.includes(term) || found.has(term)) continue;
    found.add(term);
    shown.push(word);
  }
  return [...shown, ...key.filter((term) => !found.has(term))].join(' ');
}

/**
 * Which of `keys` (topics' key terms) each question's terms hold, looked up by the keys' terms:
 * the work per question is its terms and the keys that share one of them, not every key (a
 * report counts 200 candidate controls a project over every question of 90 days and more).
 */
export function topicMatcher(vocabulary: Vocabulary, keys: readonly (readonly string[])[]): (terms: TermIds) => number[] {
  const byTerm = new Map<number, { index: number; ids: number[] }[]>();
  for (const [index, key] of keys.entries()) {
    // A key's terms get ids now: the questions holding them may be read after.
    const ids = key.map((term) => vocabulary.intern(term));
    const [first] = ids;
    if (first === undefined) continue;
    const listed = byTerm.get(first);
    if (listed === undefined) byTerm.set(first, [{ index, ids }]);
    else listed.push({ index, ids });
  }
  return (terms) => {
    const found: number[] = [];
    for (const term of terms) {
      for (const { index, ids } of byTerm.get(term) ?? []) if (ids.every((id) => holds(terms, id))) found.push(index);
    }
    return found;
  };
}
