/**
 * Topics of assistant questions, by their words: no model, no network, the same topics for the
 * same questions on every run.
 *
 * A question's terms: its text NFKC-folded and lower-cased, cut into words (letters, marks and
 * digits; `next.js`, `api-key`, `llms.txt` stay one word), without stop words of the languages
 * readers write in most, the cleaning's placeholders (`[email]`) and one-character words, each
 * word simply stemmed (`webhooks` → `webhook`, `configuring` → `configur`).
 *
 * Topics are drawn greedily: the term of the most unanswered questions not yet in a topic seeds
 * one; its key terms are the seed and the terms every one of those questions shares (up to
 * three, the most frequent first). A topic holds every question whose terms include all its key
 * terms — so its key alone says which questions it holds (`inTopic`), on any day and in any
 * period, and a question may fall in two topics (it counts in both). At most `MAX_TOPICS` per
 * project (each round reads every question left, so the cap bounds the work): questions in no
 * topic after them — the least asked — are counted in `left`, not listed as gaps.
 */

import { cleanReaderText } from '../shared/reader-text.js';

/** Topics drawn per project at most (the least asked questions after them are not listed). */
export const MAX_TOPICS = 100;
/** Key terms of a topic at most. */
export const MAX_KEY_TERMS = 3;
/** Questions a topic's prompt quotes at most (its most asked, distinct). */
export const TOPIC_EXAMPLES = 5;

/**
 * Words that say nothing of a topic: English, French, Spanish, German and Portuguese function
 * words and question words, and what the personal-data cleaning leaves (`[email]`, `[phone]`,
 * `[secret]`).
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

/** Simple stemming: plural and verb endings of English words (Latin letters only; other scripts are kept whole). */
export function stemOf(word: string): string {
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

/** The words of a text as shown in a topic's name, each with its term (NFKC, lower case; stop words and one-character words left out). */
export function wordsOf(text: string): { readonly word: string; readonly term: string }[] {
  const words: { word: string; term: string }[] = [];
  // The words of the text as readers' words are shown (links defanged, addresses hidden, controls
  // gone): a topic's name is made of them, and must not rebuild what the cleaning took apart.
  const shown = cleanReaderText(text, WHOLE).text;
  for (const match of shown.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if ([...word].length < 2 || STOP_WORDS.has(word)) continue;
    words.push({ word, term: stemOf(word) });
  }
  return words;
}

/** A question's terms (a set: a word said twice counts once). */
export function termsOf(text: string): Set<string> {
  return new Set(wordsOf(text).map((w) => w.term));
}

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
  readonly unanswered: number;
}

export interface Topic {
  /** Key terms, in code-point order (`topicKeyOf` joins them). */
  readonly terms: readonly string[];
  /** The key terms as readers wrote them, in the order of the topic's most asked question (`return 401`). */
  readonly name: string;
  /** Its unanswered questions, the most unanswered first (then by text): distinct questions. */
  readonly questions: readonly AskedQuestion[];
  /** Times its questions went unanswered. */
  readonly unanswered: number;
}

export interface Topics {
  readonly topics: readonly Topic[];
  /** Unanswered questions in no listed topic (no word to group by, or after MAX_TOPICS), and how often they went unanswered. */
  readonly left: { readonly questions: number; readonly unanswered: number };
}

/** The same question: its text NFKC-folded, lower-cased, runs of spaces as one, no space or ?!. at either end. */
export function sameQuestion(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .replace(/^[\s?!.]+|[\s?!.]+$/gu, '');
}

/** The topics of one project's questions (`questions` distinct by `sameQuestion`). */
export function groupTopics(questions: readonly AskedQuestion[], maxTopics = MAX_TOPICS): Topics {
  const all = questions.map((question) => ({ question, terms: termsOf(question.text) }));
  let remaining = all.filter((q) => q.question.unanswered > 0 && q.terms.size > 0);
  const keys: string[][] = [];
  while (remaining.length > 0 && keys.length < maxTopics) {
    const weights = new Map<string, { unanswered: number; questions: number }>();
    for (const { question, terms } of remaining) {
      for (const term of terms) {
        const w = weights.get(term) ?? { unanswered: 0, questions: 0 };
        weights.set(term, { unanswered: w.unanswered + question.unanswered, questions: w.questions + 1 });
      }
    }
    const heavier = (a: string, b: string) => {
      const [wa, wb] = [weights.get(a), weights.get(b)];
      return (wb?.unanswered ?? 0) - (wa?.unanswered ?? 0) || (wb?.questions ?? 0) - (wa?.questions ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
    };
    const [seed] = [...weights.keys()].sort(heavier);
    if (seed === undefined) break;
    const members = remaining.filter((q) => q.terms.has(seed));
    const shared = [...(members[0]?.terms ?? [])].filter((term) => term !== seed && members.every((q) => q.terms.has(term)));
    keys.push([seed, ...shared.sort(heavier).slice(0, MAX_KEY_TERMS - 1)]);
    remaining = remaining.filter((q) => !q.terms.has(seed));
  }
  const topics = keys.map((key) => topicOf(all, key));
  const inSome = new Set(topics.flatMap((topic) => topic.questions));
  const left = all.filter((q) => q.question.unanswered > 0 && !inSome.has(q.question));
  return { topics, left: { questions: left.length, unanswered: left.reduce((sum, q) => sum + q.question.unanswered, 0) } };
}

function topicOf(all: readonly { question: AskedQuestion; terms: Set<string> }[], key: readonly string[]): Topic {
  const held = all.filter((q) => inTopic(q.terms, key));
  const questions = held
    .map((q) => q.question)
    .filter((q) => q.unanswered > 0)
    .sort((a, b) => b.unanswered - a.unanswered || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return {
    terms: [...key].sort(),
    name: nameOf(questions[0]?.text ?? '', key),
    questions,
    unanswered: questions.reduce((sum, q) => sum + q.unanswered, 0),
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
