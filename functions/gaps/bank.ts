/**
 * The unanswered questions of a DuckDB session's gap days, read once and held packed (issue 57):
 * one entry per question of a project (the same question: `sameQuestion`), its terms read once
 * into one array of term ids, and one row per question and day. The topics of any range of those
 * days (`packed`), a topic's figure per day (`figuresByDay`) and the terms of a text read again
 * (`termIdsOf`) come from it without asking DuckDB or reading a text again: a report with a
 * completed gap job asks for the look-back's topics, the period's, both sides' figures and the
 * topics' unanswered questions per day of their rates (gaps/day-rates.ts).
 *
 * DuckDB streams each time a question went unanswered as it was asked; the bank folds and
 * counts them (`add`): DuckDB folding, grouping and ordering a day of 200,000 distinct questions
 * held about 100 MB beside the bank, and took longer than folding them here.
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import type { QuestionDayRow } from '../warehouse/questions.js';
import type { LoadedWarehouse } from '../warehouse/session.js';
import { type AskedQuestion, type PackedQuestions, sameQuestion } from './topics.js';
import { hashOf, type TermIds, Vocabulary } from './terms.js';

/** Text of printable ASCII only. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** No row (the end of a question's rows). */
const NONE = 0xffffffff;

/** A typed array that grows (doubling): a column of a bank. */
class Column {
  #values: Uint32Array | Float64Array;
  length = 0;

  /** `float`: any number (times), else whole numbers below 2^32. */
  constructor(private readonly float = false) {
    this.#values = float ? new Float64Array(1024) : new Uint32Array(1024);
  }

  push(value: number): void {
    if (this.length === this.#values.length) {
      const grown = this.float ? new Float64Array(this.#values.length * 2) : new Uint32Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.length] = value;
    this.length += 1;
  }

  at(i: number): number {
    return this.#values[i] as number;
  }

  set(i: number, value: number): void {
    this.#values[i] = value;
  }

  /** The values from `from` to `to` (a view, not a copy; whole numbers). */
  view(from = 0, to = this.length): Uint32Array {
    return this.#values.subarray(from, to) as Uint32Array;
  }
}

/** What the fold changes between words: a tab, a line end, or two spaces. */
const SPACE_RUN = /[\t\n\f\r]| {2}/;

/** Space, ?, ! and .: what the fold trims at either end once spaces are one. */
const ENDS = new Set([0x20, 0x3f, 0x21, 0x2e]);

/**
 * A question as queries/answered-questions-by-day.sql folds it (and this query did): lower
 * case, each run of spaces, tabs and line ends one space, no space or ?!. at either end.
 * Trimmed by hand (linear in any run of dots).
 */
function sqlFold(text: string): string {
  const lower = text.toLowerCase();
  // Most questions have no run of spaces to fold: no new string for them.
  const folded = SPACE_RUN.test(lower) ? lower.replace(/[\t\n\f\r ]+/g, ' ') : lower;
  let [start, end] = [0, folded.length];
  while (start < end && ENDS.has(folded.charCodeAt(start))) start += 1;
  while (end > start && ENDS.has(folded.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === folded.length ? folded : folded.slice(start, end);
}

/** Which question a text folded by the SQL is: printable ASCII is its own `sameQuestion` already. */
function keyOf(folded: string): string {
  return PRINTABLE_ASCII.test(folded) ? folded : sameQuestion(folded);
}

/**
 * One project's questions by their key's hash: open addressing in one typed array (a Map of a
 * day's 200,000 questions held about 7 MB), each slot a question (or -1), probed in turn from
 * the hash's slot; the table doubles when half full.
 */
class QuestionTable {
  #slots = new Int32Array(1024).fill(-1);
  #size = 0;

  /** `hashOf`: each question's hash (the bank's column). */
  constructor(private readonly hashOf: (question: number) => number) {}

  /** The question of `hash` that `matches`, probing from its slot. */
  find(hash: number, matches: (question: number) => boolean): number | undefined {
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const question = this.#slots[slot] as number;
      if (question < 0) return undefined;
      if (this.hashOf(question) === hash && matches(question)) return question;
    }
  }

  add(hash: number, question: number): void {
    if ((this.#size + 1) * 2 > this.#slots.length) {
      const old = this.#slots;
      this.#slots = new Int32Array(old.length * 2).fill(-1);
      for (const held of old) if (held >= 0) this.#place(this.hashOf(held), held);
    }
    this.#place(hash, question);
    this.#size += 1;
  }

  #place(hash: number, question: number): void {
    const mask = this.#slots.length - 1;
    let slot = hash & mask;
    while ((this.#slots[slot] as number) >= 0) slot = (slot + 1) & mask;
    this.#slots[slot] = question;
  }
}

export class QuestionBank {
  readonly #vocabulary: Vocabulary;
  /**
   * Per project: its index, and its questions by their key's hash (`hashOf(keyOf(…))`). The
   * keys are not held: a question's key is its text's, folded again when its hash comes up (a
   * day of 200,000 distinct questions held as many keys, some 15 MB).
   */
  readonly #projects = new Map<string, { readonly index: number; readonly questions: QuestionTable }>();
  readonly #days: string[] = [];
  readonly #dayIndex = new Map<string, number>();
  // Per question: its project, its terms (`#terms` from … to), its latest row added (its rows are chained by `#rowNext`).
  readonly #questionProject = new Column();
  readonly #termsFrom = new Column();
  readonly #termsTo = new Column();
  readonly #terms = new Column();
  readonly #lastRow = new Column();
  readonly #hash = new Column();
  // Per row (a question on a day): the question, the day, times unanswered, when last asked, its text then, the question's row added before.
  readonly #rowQuestion = new Column();
  readonly #rowDay = new Column();
  readonly #rowUnanswered = new Column();
  readonly #rowAskedAt = new Column(true);
  readonly #rowText: string[] = [];
  readonly #rowNext = new Column();

  constructor(
    vocabulary: Vocabulary,
    /** The range read (`to` the day after), and its projects. */
    readonly range: { readonly from: string; readonly to: string; readonly projects: readonly string[] },
  ) {
    this.#vocabulary = vocabulary;
  }

  /**
   * Adds a row of queries/unanswered-questions-by-day.sql (rows in any order): one more time its
   * question went unanswered on its day, its text the day's when asked last (at the same
   * moment: the first in code-point order).
   */
  add(row: QuestionDayRow): void {
    let project = this.#projects.get(row.projectId);
    if (project === undefined) {
      project = { index: this.#projects.size, questions: new QuestionTable((question) => this.#hash.at(question)) };
      this.#projects.set(row.projectId, project);
    }
    const folded = sqlFold(row.text);
    const key = keyOf(folded);
    const hash = hashOf(key);
    let question = this.#find(project.questions, hash, key, row.text);
    if (question === undefined) {
      question = this.#newQuestion(project.index, folded, hash);
      project.questions.add(hash, question);
    }
    let day = this.#dayIndex.get(row.day);
    if (day === undefined) {
      day = this.#days.length;
      this.#days.push(row.day);
      this.#dayIndex.set(row.day, day);
    }
    // The question's row of that day (a question has a row per day it went unanswered: a short chain).
    const latest = this.#lastRow.at(question);
    let at = latest;
    while (at !== NONE && this.#rowDay.at(at) !== day) at = this.#rowNext.at(at);
    if (at === NONE) {
      const created = this.#rowQuestion.length;
      this.#rowQuestion.push(question);
      this.#rowDay.push(day);
      this.#rowUnanswered.push(1);
      this.#rowAskedAt.push(row.askedAt);
      // The same text as the question's row before is held once.
      const before = latest === NONE ? undefined : this.#rowText[latest];
      this.#rowText.push(row.text === before ? before : row.text);
      this.#rowNext.push(latest);
      this.#lastRow.set(question, created);
      return;
    }
    this.#rowUnanswered.set(at, this.#rowUnanswered.at(at) + 1);
    const [asked, text] = [this.#rowAskedAt.at(at), this.#rowText[at] as string];
    if (row.askedAt > asked || (row.askedAt === asked && row.text < text)) {
      this.#rowAskedAt.set(at, row.askedAt);
      this.#rowText[at] = row.text;
    }
  }

  /** The question of `key` (of a text `asked`, when known) among `questions` of its hash. */
  #find(questions: QuestionTable, hash: number, key: string, asked?: string): number | undefined {
    return questions.find(hash, (question) => {
      const text = this.#rowText[this.#lastRow.at(question)] as string;
      return text === asked || keyOf(sqlFold(text)) === key;
    });
  }

  /** A new question of `project` (its key's hash `hash`), its terms read from its text as the SQL folds it. */
  #newQuestion(project: number, folded: string, hash: number): number {
    const question = this.#questionProject.length;
    this.#questionProject.push(project);
    this.#hash.push(hash);
    this.#termsFrom.push(this.#terms.length);
    for (const id of this.#vocabulary.termIdsOf(folded)) this.#terms.push(id);
    this.#termsTo.push(this.#terms.length);
    this.#lastRow.push(NONE);
    return question;
  }

  /** The projects with a question, in the order first read. */
  get projects(): string[] {
    return [...this.#projects.keys()];
  }

  /** The terms of a question's text as the SQL folds it, when a question of the bank has it. */
  termIdsOf(text: string): TermIds | undefined {
    const key = keyOf(text);
    const hash = hashOf(key);
    for (const { questions } of this.#projects.values()) {
      const question = this.#find(questions, hash, key);
      if (question !== undefined) return this.#terms.view(this.#termsFrom.at(question), this.#termsTo.at(question));
    }
    return undefined;
  }

  /** Which days of the bank fall in `[from, to)`. */
  #daysIn(from: string, to: string): Uint8Array {
    return Uint8Array.from(this.#days, (day) => (day >= from && day < to ? 1 : 0));
  }

  /**
   * The questions of `projectId` on the days `[from, to)`, for `groupPacked`: each with the times
   * it went unanswered on those days and its text of the latest of them (the first row of that day).
   */
  packed(projectId: string, from: string, to: string): PackedQuestions {
    const project = this.#projects.get(projectId);
    const count = this.#questionProject.length;
    const unanswered = new Float64Array(count);
    const latest = new Int32Array(count).fill(-1);
    if (project !== undefined) {
      const inRange = this.#daysIn(from, to);
      for (let row = 0; row < this.#rowQuestion.length; row += 1) {
        const question = this.#rowQuestion.at(row);
        const day = this.#rowDay.at(row);
        if (inRange[day] === 0 || this.#questionProject.at(question) !== project.index) continue;
        unanswered[question] = (unanswered[question] as number) + this.#rowUnanswered.at(row);
        const seen = latest[question] as number;
        // Days are numbered as first read (rows come in any order): compared by their dates.
        if (seen < 0 || (this.#days[day] as string) > (this.#days[this.#rowDay.at(seen)] as string)) latest[question] = row;
      }
    }
    const chosen: number[] = [];
    for (let question = 0; question < count; question += 1) if ((unanswered[question] as number) > 0) chosen.push(question);
    const text = (i: number) => this.#rowText[latest[chosen[i] as number] as number] as string;
    return {
      size: chosen.length,
      terms: this.#terms.view(),
      from: (i) => this.#termsFrom.at(chosen[i] as number),
      to: (i) => this.#termsTo.at(chosen[i] as number),
      unanswered: (i) => unanswered[chosen[i] as number] as number,
      text,
      question: (i): AskedQuestion => ({ text: text(i), unanswered: unanswered[chosen[i] as number] as number }),
    };
  }

  /**
   * Each of `gaps`' unanswered questions per day on `[from, to)`, as `gapId → day → figure` (its
   * days in date order): every question of its project whose terms hold its key terms (`match`:
   * topics.ts `topicMatcher`). Counted in one typed array per gap and day (a report counts its
   * fixed gaps and up to 200 controls each over every row of the look-back).
   */
  figuresByDay(
    gaps: readonly { readonly gapId: string; readonly projectId: string }[],
    match: (terms: TermIds) => number[],
    from: string,
    to: string,
  ): Map<string, Map<string, number>> {
    // Each question matched once (a question is asked on many days): the gaps of its project it falls in, packed.
    const projectIndex = gaps.map((gap) => this.#projects.get(gap.projectId)?.index ?? -1);
    const count = this.#questionProject.length;
    const foundFrom = new Uint32Array(count + 1);
    const found: number[] = [];
    for (let question = 0; question < count; question += 1) {
      for (const index of match(this.#terms.view(this.#termsFrom.at(question), this.#termsTo.at(question)))) {
        if (projectIndex[index] === this.#questionProject.at(question)) found.push(index);
      }
      foundFrom[question + 1] = found.length;
    }
    const days = this.#days.length;
    const inRange = this.#daysIn(from, to);
    const sums = new Float64Array(gaps.length * days);
    for (let row = 0; row < this.#rowQuestion.length; row += 1) {
      const question = this.#rowQuestion.at(row);
      const day = this.#rowDay.at(row);
      if (foundFrom[question] === foundFrom[question + 1] || inRange[day] === 0) continue;
      const unanswered = this.#rowUnanswered.at(row);
      for (let k = foundFrom[question] as number; k < (foundFrom[question + 1] as number); k += 1) {
        const at = (found[k] as number) * days + day;
        sums[at] = (sums[at] as number) + unanswered;
      }
    }
    // Days are numbered as first read: listed by their dates.
    const byDate = Array.from({ length: days }, (_, day) => day).sort((a, b) => ((this.#days[a] as string) < (this.#days[b] as string) ? -1 : 1));
    const byGap = new Map<string, Map<string, number>>();
    for (const [index, gap] of gaps.entries()) {
      for (const day of byDate) {
        const figure = sums[index * days + day] as number;
        if (figure === 0) continue;
        const perDay = byGap.get(gap.gapId) ?? new Map<string, number>();
        const date = this.#days[day] as string;
        perDay.set(date, (perDay.get(date) ?? 0) + figure);
        byGap.set(gap.gapId, perDay);
      }
    }
    return byGap;
  }
}

/** One bank per DuckDB session (the latest range asked for that it did not hold), and the session's vocabulary. */
const BANKS = new WeakMap<LoadedWarehouse, { bank: Promise<QuestionBank>; range: QuestionBank['range'] }>();
const VOCABULARIES = new WeakMap<LoadedWarehouse, Vocabulary>();

/** The vocabulary of the texts read in `warehouse`'s session: the terms of its bank's questions are looked up, not read again. */
export function vocabularyOf(warehouse: LoadedWarehouse): Vocabulary {
  const known = VOCABULARIES.get(warehouse);
  if (known !== undefined) return known;
  const vocabulary = new Vocabulary();
  VOCABULARIES.set(warehouse, vocabulary);
  return vocabulary;
}

/**
 * The bank of `warehouse`'s unanswered questions holding `range` (its days `[from, to)` and
 * projects): the one read already when it holds them, else read now, a chunk of rows at a time
 * (a day of 200,000 distinct questions is never held as rows).
 */
export async function bankOf(warehouse: LoadedWarehouse, asked: QuestionBank['range']): Promise<QuestionBank> {
  const known = BANKS.get(warehouse);
  const mine = new Set(known?.range.projects);
  if (known !== undefined && known.range.from <= asked.from && asked.to <= known.range.to && asked.projects.every((p) => mine.has(p))) return known.bank;
  // A bank that does not hold the range is read again for both (a report asks for the look-back's projects with jobs, then for all of the period's).
  const range =
    known === undefined
      ? asked
      : {
          // biome-ignore lint/complexity/useMathMinMax: ISO days compare as strings
          from: known.range.from < asked.from ? known.range.from : asked.from,
          // biome-ignore lint/complexity/useMathMinMax: ISO days compare as strings
          to: known.range.to > asked.to ? known.range.to : asked.to,
          projects: [...new Set([...known.range.projects, ...asked.projects])].sort(),
        };
  const vocabulary = vocabularyOf(warehouse);
  const bank = new QuestionBank(vocabulary, range);
  const { unansweredQuestionsByDay } = TYPED_QUESTIONS;
  const read = warehouse.session
    .each(unansweredQuestionsByDay.sql(warehouse.tables, range), (rows) => {
      for (const row of rows) bank.add(unansweredQuestionsByDay.decode(row));
    })
    .then(() => {
      vocabulary.knowing((text) => bank.termIdsOf(text));
      return bank;
    });
  BANKS.set(warehouse, { bank: read, range });
  return read;
}
