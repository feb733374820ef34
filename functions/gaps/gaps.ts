/**
 * Content gaps: where the docs failed their readers in a period, as the warehouse shows it.
 * Three kinds, each counted by one query of `queries/` (read.ts runs them):
 * - `unanswered_topic`: assistant questions left unanswered, grouped into topics by their words
 *   (topics.ts: a topic is its key terms; every question with all of them belongs to it);
 * - `search_without_clicks`: a search term (case-insensitively) nobody clicked a result of;
 * - `thumbs_down_page`: a page with thumbs down in contextual feedback.
 *
 * A gap's id is a hash of its kind, project and key (the topic's key terms, the lower-cased
 * term, the path): the same gap has the same id on any run, whatever the period, so a job made for it
 * can be found again (`gap_id` of followup_outcomes) and its effect measured.
 *
 * The score compares kinds: it is the number of readers failed by the one thing the gap asks to
 * fix (`SCORE_RULE`) — the thumbs down on its page, the searches of its term, the times the
 * questions it names (the up to three most asked of its topic, which its title and prompt
 * quote first; the prompt quotes up to five, the last two for context) went unanswered. One reader failed counts one, whatever the kind. Its raw count (`failures`, the
 * figure the report follows per day) is kept beside it and said by `because`.
 *
 * Why not the raw count: an unanswered-questions gap gathers many different questions — once a
 * bucket the service filled (a handful of categories, one of them "no category": the sandbox's two
 * weeks put 3,611 questions in it against 152 thumbs down on the worst page), now a topic that
 * still holds dozens — so they add up to a number no page and no search term can reach, while
 * the agent can act only on the questions the gap names. Why not the count relative to the usual gap of its kind and
 * project (÷ the median or a high percentile): buckets are few and alike (the median category is
 * about the largest but one) while pages and terms are a long tail (the median page has one thumbs
 * down), so the ratio swaps one kind's dominance for another's (152 for the worst page against 2
 * for the no-category bucket). Nor each kind's share of its kind: a kind cut into fewer buckets
 * gets larger shares. Counting what the gap names keeps one unit, a reader, across the kinds; a
 * larger project's gaps rank higher because they fail more readers (`--project` lists one).
 */
import type { ScopeReason, ScopeVerdict } from '../scope/rules.js';
import { createHash } from 'node:crypto';
import type { OutcomeStatus } from '../follow-up/state.js';
import { percent, plural } from '../shared/format.js';
import { readerText } from '../shared/reader-text.js';
import { topicKeyOf } from './topics.js';

export const GAP_KINDS = ['unanswered_topic', 'search_without_clicks', 'thumbs_down_page'] as const;
export type GapKind = (typeof GAP_KINDS)[number];

/** How a gap's score is made, in one sentence (`gaps` prints it; `--json` holds it in `scoring`). */
export const SCORE_RULE =
  'readers failed by what the gap names: the thumbs down on its page, the searches of its term, or the times its named questions (the up to three most asked of its topic) went unanswered; one reader counts one, whatever the kind';

/** What a gap's `failures` count (`--json`'s `scoring` holds it beside SCORE_RULE). */
export const FAILURES_RULE = "the gap's whole count: every unanswered question of the topic, search of the term, thumbs down on the page";

/** What a gap is measured by, per day (the report's "before / after" figure). */
export const GAP_FIGURE: Readonly<Record<GapKind, string>> = {
  unanswered_topic: 'unanswered questions',
  search_without_clicks: 'searches without a click',
  thumbs_down_page: 'thumbs down',
};

export interface UnansweredEvidence {
  readonly kind: 'unanswered_topic';
  /** The topic's key terms as readers wrote them (`return 401`): what its title and prompt name. */
  readonly topic: string;
  /** Its key terms (stems, topics.ts), in code-point order: a question with all of them is in the topic. */
  readonly terms: readonly string[];
  /** Times the topic's questions went unanswered in the period. */
  readonly unanswered: number;
  /** Distinct questions of the topic left unanswered. */
  readonly questions: number;
  /** Up to five distinct unanswered questions, the most asked first (the same question: the same text but for case, spaces and ?!. at the ends). */
  readonly examples: readonly string[];
  /** How often each of `examples` went unanswered in the period. */
  readonly asked?: readonly number[];
}

export interface SearchEvidence {
  readonly kind: 'search_without_clicks';
  /** The term as first written (of its spellings, the smallest). */
  readonly query: string;
  /** Times it was searched in the period. */
  readonly searches: number;
  /** Days it was searched on. */
  readonly days: number;
}

export interface ThumbsDownEvidence {
  readonly kind: 'thumbs_down_page';
  readonly path: string;
  readonly thumbsDown: number;
  readonly thumbsUp: number;
  /** Up to three comments of thumbs down, the latest first. */
  readonly comments: readonly string[];
}

export type GapEvidence = UnansweredEvidence | SearchEvidence | ThumbsDownEvidence;

/** A request already made for a gap, from the follow-up state or followup_outcomes. */
export interface GapRequest {
  readonly requestId: string;
  readonly projectId?: string | undefined;
  /** `in_flight`: not finished (pending, being sent, or its job polled); `done`: an outcome exists. */
  readonly state: 'in_flight' | 'done';
  readonly status?: OutcomeStatus | undefined;
  readonly jobId?: string | undefined;
  readonly prLink?: string | undefined;
  /** Epoch ms the outcome was recorded (done only). */
  readonly finishedAt?: number | undefined;
  /** The pull request against the scope rules (functions/scope/); absent when not checked. */
  readonly scope?: ScopeVerdict | undefined;
  readonly scopeReasons?: readonly ScopeReason[] | undefined;
  /** Epoch ms its pull request was merged (followup_outcomes.merged_at); absent: not merged or not read. */
  readonly mergedAt?: number | undefined;
}

export interface Gap {
  readonly gapId: string;
  readonly kind: GapKind;
  readonly projectId: string;
  /** What the id hashes besides kind and project: the topic's key terms (`topicKeyOf`), the lower-cased term, the path. */
  readonly key: string;
  /** One line naming the gap for people. */
  readonly title: string;
  /** Readers failed by what the gap names (`scoreOf`, `SCORE_RULE`): comparable across kinds. */
  readonly score: number;
  /** The gap's whole count in the period (`figureOf`): every unanswered question of the topic, every search of the term, every thumbs down on the page. */
  readonly failures: number;
  /** The score and the failures in words: how many readers, how they were failed, over how long. */
  readonly because: string;
  readonly evidence: GapEvidence;
  /** The requests made for this gap so far, the latest first. */
  readonly requests: readonly GapRequest[];
  /** Whether `gaps --prompts` writes a prompt for it (no request in flight or done but failed/rejected). */
  readonly promptable: boolean;
}

/** `gap_<16 hex>`: the same kind, project and key give the same id on any run. */
export function gapIdOf(kind: GapKind, projectId: string, key: string): string {
  return `gap_${createHash('sha256').update(`${kind}\u0000${projectId}\u0000${key}`, 'utf8').digest('hex').slice(0, 16)}`;
}

/** The key of a piece of evidence (the part of the id that is not kind and project). */
export function keyOf(evidence: GapEvidence): string {
  switch (evidence.kind) {
    case 'unanswered_topic':
      return topicKeyOf(evidence.terms);
    case 'search_without_clicks':
      return evidence.query.toLowerCase();
    case 'thumbs_down_page':
      return evidence.path;
  }
}

/** The gap's figure in the period (its `failures`, and what the report follows per day). */
export function figureOf(evidence: GapEvidence): number {
  switch (evidence.kind) {
    case 'unanswered_topic':
      return evidence.unanswered;
    case 'search_without_clicks':
      return evidence.searches;
    case 'thumbs_down_page':
      return evidence.thumbsDown;
  }
}

/**
 * Readers failed by what the gap names: the times its named questions (`examples`, the most asked
 * of the topic) went unanswered — each at least once when its count is unknown —, the searches
 * of its term, the thumbs down on its page. Never more than `figureOf`.
 */
export function scoreOf(evidence: GapEvidence): number {
  if (evidence.kind !== 'unanswered_topic') return figureOf(evidence);
  // Three, as the score was first made (issue 37): quoting two more for context must not lift a
  // topic above the page or the term that fails as many readers.
  const named = evidence.examples.slice(0, SCORED_QUESTIONS).reduce((sum, _, i) => sum + Math.max(1, evidence.asked?.[i] ?? 1), 0);
  return Math.min(named, evidence.unanswered);
}

/** The most asked questions of a topic its score counts. */
export const SCORED_QUESTIONS = 3;

/** Outcome statuses after which a gap may be prompted again: the job never ran to an end that may have changed the docs. */
const PROMPT_AGAIN: ReadonlySet<OutcomeStatus> = new Set(['failed', 'rejected']);

/**
 * Gaps of `found`, with their requests (by gap id), ranked: highest score first, then by kind,
 * then in the order given (each question's own order: its ties broken by its text, project and
 * path), so equal scores keep one order on every run. The searches' and pages' questions order
 * their rows by their score, so their first N rows hold their first N gaps; the unanswered
 * questions are grouped into topics from all of their rows (topics.ts), in the topics' order.
 */
export function rankGaps(
  found: readonly { readonly projectId: string; readonly evidence: GapEvidence }[],
  requests: ReadonlyMap<string, readonly GapRequest[]>,
  days: number,
): Gap[] {
  const gaps = found.map(({ projectId, evidence }): Gap => {
    const key = keyOf(evidence);
    const gapId = gapIdOf(evidence.kind, projectId, key);
    const made = requests.get(gapId) ?? [];
    const latest = made[0];
    return {
      gapId,
      kind: evidence.kind,
      projectId,
      key,
      title: titleOf(evidence),
      score: scoreOf(evidence),
      failures: figureOf(evidence),
      because: becauseOf(evidence, days),
      evidence,
      requests: made,
      promptable: latest === undefined || (latest.state === 'done' && latest.status !== undefined && PROMPT_AGAIN.has(latest.status)),
    };
  });
  // Array.prototype.sort is stable: equal scores of one kind keep the questions' order.
  return gaps.sort((a, b) => b.score - a.score || GAP_KINDS.indexOf(a.kind) - GAP_KINDS.indexOf(b.kind));
}

/** The gap's name: readers' words in it go through readerText (it is printed, shown in the report and written to JSON). */
function titleOf(evidence: GapEvidence): string {
  switch (evidence.kind) {
    case 'unanswered_topic': {
      // The topic names the gap; its most asked question says what readers wanted of it.
      const times = evidence.asked?.[0] ?? 0;
      const named =
        evidence.examples.length === 0 ? '' : `, most asked: "${readerText(evidence.examples[0] ?? '', 'quote')}"${times > 1 ? ` (${times}×)` : ''}`;
      return `Unanswered assistant questions about "${readerText(evidence.topic, 'category')}"${named}`;
    }
    case 'search_without_clicks':
      return `Search "${readerText(evidence.query, 'quote')}" with no click`;
    case 'thumbs_down_page':
      return `Thumbs down on ${readerText(evidence.path, 'path')}`;
  }
}

function becauseOf(evidence: GapEvidence, days: number): string {
  const over = `in ${days} day${days === 1 ? '' : 's'}`;
  switch (evidence.kind) {
    case 'unanswered_topic': {
      const named = Math.min(SCORED_QUESTIONS, evidence.examples.length);
      const most = named === 1 ? 'the most asked' : `the ${named} most asked`;
      return `${plural(evidence.unanswered, 'question')} on this topic left unanswered ${over}, ${plural(evidence.questions, 'different question')}${named === 0 ? '' : ` — ${scoreOf(evidence)} of them ${most}`}`;
    }
    case 'search_without_clicks':
      return `${plural(evidence.searches, 'search', 'searches')} ${over}, on ${plural(evidence.days, 'day')}, and not one click on a result`;
    case 'thumbs_down_page':
      return `${plural(evidence.thumbsDown, 'thumbs down', 'thumbs down')} ${over} against ${evidence.thumbsUp} up (${percent(evidence.thumbsDown, evidence.thumbsDown + evidence.thumbsUp)} down)`;
  }
}
