/**
 * Deterministic, lazily generated assistant conversations: one row per user turn (the
 * caller statistics are derived from the same turns: caller-stats.ts).
 *
 * Per project and UTC day there are A_d turns (`baseRows(…, 'assistant')`, ±10 % by day
 * unless exact). Turns are grouped into conversations of 1–4 consecutive turns that share
 * one `id` (a turn starts a new conversation with probability ½, and at least every fourth
 * turn does, so finding a turn's conversation looks back at most 3 turns). A conversation
 * starts at a random time of the day and its turns follow 20 s – 5 min apart, so every
 * timestamp is inside the day, but rows are NOT in timestamp order (⚠ the real order is
 * undocumented). A multi-day window lists its days newest first.
 */
import type { AssistantResponseType, ResolutionStatus } from '../../functions/shared/api-enums.js';
import { DAY_MS } from '../../functions/shared/time.js';
import { hex, mix, pick, scramble, unit } from './hash.js';
import type { SitePages } from './pages.js';
import type { ProjectRegistry } from './projects.js';
import { ANSWERS, CLARIFICATIONS, QUERIES, QUERY_CATEGORIES, SEARCH_HEADS, SOURCE_TITLES } from './text.js';
import { DayByDayRows, type RowDay } from './windowed.js';

/** One row (one user turn) of `GET /v1/analytics/{projectId}/assistant`. */
export interface ConversationTurn {
  /** The conversation's id: the same on every turn of a conversation (not a row key). */
  readonly id: string;
  /** When the user asked: ISO 8601 with milliseconds. */
  readonly timestamp: string;
  readonly query: string;
  readonly response: string;
  /** Absent on about half the answers (absent means `answer`). */
  readonly responseType?: AssistantResponseType;
  /** 0–4 sources. */
  readonly sources: readonly { readonly title: string; readonly url: string }[];
  readonly resolutionStatus: ResolutionStatus;
  readonly queryCategory: string | null;
  readonly pageUrl: string | null;
}

const MAX_TURNS = 4;
const MIN_GAP_MS = 20_000;
const MAX_GAP_MS = 300_000;

/** Catalogue entries the assistant's sources and pages point at, at most. */
const PAGES_POINTED_AT = 10_000;

export class AssistantData extends DayByDayRows<ConversationTurn> {
  constructor(
    registry: ProjectRegistry,
    private readonly pages: SitePages,
  ) {
    super(registry, { rowName: 'assistant turn', dataset: 'assistant', salt: 0xa55157, spread: 0.1 });
  }

  /** Each day of the window with its turns and its key (for the caller stats, caller-stats.ts). */
  turnsByDay(projectId: string, days: readonly string[]): readonly RowDay[] {
    return days.map((day) => this.dayOf(projectId, day));
  }

  protected rowOf(projectId: string, day: RowDay, i: number): ConversationTurn {
    const origin = `https://${this.pages.host(projectId)}`;
    const pageRange = this.pages.listed(projectId, PAGES_POINTED_AT);
    let first = i;
    while (first > 0 && !startsConversation(day, first)) first -= 1;
    const conversation = mix(day.key, first);
    const startedAt = day.start + Math.floor(unit(mix(conversation, 1)) * (DAY_MS - MAX_TURNS * MAX_GAP_MS));
    let time = startedAt;
    for (let turn = first + 1; turn <= i; turn++) time += MIN_GAP_MS + Math.floor(unit(mix(mix(day.key, turn), 2)) * (MAX_GAP_MS - MIN_GAP_MS));
    const id = `${hex(Math.floor(startedAt / 1000), 8)}${hex(day.tag, 6)}${hex(scramble(first, day.tag), 10)}`;

    const key = mix(day.key, i);
    const clarifying = unit(mix(key, 3)) < 0.15;
    const topic = pick(SEARCH_HEADS, mix(key, 4));
    const sourceCount = clarifying ? mix(key, 5) % 2 : mix(key, 5) % 5;
    const sources: { title: string; url: string }[] = [];
    for (let s = 0; s < sourceCount; s++) {
      const rank = mix(key, 10 + s) % pageRange;
      sources.push({ title: pick(SOURCE_TITLES, mix(key, 20 + s)), url: `${origin}${this.pages.path(projectId, rank)}` });
    }
    const typeDraw = unit(mix(key, 6));
    const answered = unit(mix(key, 7)) < (clarifying ? 0.3 : 0.8);
    const base = {
      id,
      timestamp: new Date(time).toISOString(),
      query: pick(QUERIES, mix(key, 8)).replace('{topic}', () => topic),
      response: clarifying ? pick(CLARIFICATIONS, mix(key, 9)) : pick(ANSWERS, mix(key, 9)),
    };
    const rest = {
      sources,
      resolutionStatus: answered ? ('answered' as const) : ('unanswered' as const),
      queryCategory: unit(mix(key, 30)) < 0.25 ? null : pick(QUERY_CATEGORIES, mix(key, 31)),
      pageUrl: unit(mix(key, 32)) < 0.3 ? null : `${origin}${this.pages.path(projectId, mix(key, 33) % pageRange)}`,
    };
    if (clarifying) return { ...base, responseType: 'clarifying_question', ...rest };
    return typeDraw < 0.5 ? { ...base, ...rest } : { ...base, responseType: 'answer', ...rest };
  }
}

/** Whether turn `i` of a day opens a conversation (at least every MAX_TURNS-th turn does). */
function startsConversation(day: RowDay, i: number): boolean {
  return i % MAX_TURNS === 0 || (mix(mix(day.key, i), 40) & 1) === 0;
}
