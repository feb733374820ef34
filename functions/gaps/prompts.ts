/**
 * Prompts for the agent, written from a gap's evidence by a template (no model call), as queue
 * messages a person reviews, edits if need be, then enqueues (`enqueue --file`). Each line is
 * `{projectId, prompt, requestId, gapId}` with no `jobId`: the consumer creates a new job.
 *
 * The request id is `<gapId>-r<n>`, n counting the requests already made for the gap: writing
 * the file twice gives the same ids (enqueueing both adds nothing), and a gap prompted again
 * after a failed job gets a new one. The prompt quotes readers' words (questions, comments):
 * that is why a person reads it before it is sent.
 */
import { MAX_PROMPT_LENGTH } from '../follow-up/message.js';
import { type Gap, type GapEvidence, NO_CATEGORY, plural } from './gaps.js';

/** A queue message for a new job, as `enqueue --file` reads it (one JSON object per line). */
export interface GapPrompt {
  readonly projectId: string;
  readonly prompt: string;
  readonly requestId: string;
  readonly gapId: string;
}

/** Longest quoted reader text, in characters (a question or comment is cut there). */
const MAX_QUOTE = 300;

/** The period a prompt speaks of. */
export interface PromptPeriod {
  readonly from: string;
  /** The last day (inclusive). */
  readonly last: string;
}

/** The queue message of `gap` (promptable or not: the caller chooses). */
export function promptOf(gap: Gap, period: PromptPeriod): GapPrompt {
  return {
    projectId: gap.projectId,
    prompt: textOf(gap.evidence, period).slice(0, MAX_PROMPT_LENGTH),
    requestId: `${gap.gapId}-r${gap.requests.length + 1}`,
    gapId: gap.gapId,
  };
}

/** The JSONL text of the prompts of the promptable gaps, in rank order ('' when none). */
export function promptLinesOf(gaps: readonly Gap[], period: PromptPeriod): string {
  return gaps
    .filter((gap) => gap.promptable)
    .map((gap) => `${JSON.stringify(promptOf(gap, period))}\n`)
    .join('');
}

function textOf(evidence: GapEvidence, period: PromptPeriod): string {
  const when = `between ${period.from} and ${period.last}`;
  switch (evidence.kind) {
    case 'unanswered_category': {
      const topic = evidence.category === NO_CATEGORY ? 'that the assistant could not place in a category' : `in the category "${evidence.category}"`;
      return [
        `Readers asked the docs assistant ${plural(evidence.unanswered, 'question')} ${topic} ${when} (in ${plural(evidence.conversations, 'conversation')}) that it could not answer from the docs.`,
        ...quoted('Questions readers asked', evidence.examples),
        'Add or extend documentation so that questions like these are answered: find the pages that should cover the topic, add what is missing (explanations, steps, examples), and link the new content from the pages readers start from. Keep the existing style and structure of the docs.',
      ].join('\n\n');
    }
    case 'search_without_clicks':
      return [
        `Readers searched the docs for "${quote(evidence.query)}" ${plural(evidence.searches, 'time')} ${when} (on ${plural(evidence.days, 'day')}), and not one of them clicked a result.`,
        'Make the docs answer this search: if a page covers the topic, make it findable for these words (title, headings, description, wording readers use); if none does, write the missing content. Keep the existing style and structure of the docs.',
      ].join('\n\n');
    case 'thumbs_down_page':
      return [
        `The page ${evidence.path} got ${plural(evidence.thumbsDown, 'thumbs down', 'thumbs down')} and ${evidence.thumbsUp} thumbs up ${when}.`,
        ...quoted('What readers wrote with a thumbs down', evidence.comments),
        'Improve this page so that it answers what readers came for: fix what is wrong or unclear, add what is missing, and keep what works. Keep the existing style and structure of the docs.',
      ].join('\n\n');
  }
}

function quoted(heading: string, texts: readonly string[]): string[] {
  if (texts.length === 0) return [];
  return [`${heading}:\n${texts.map((text) => `- "${quote(text)}"`).join('\n')}`];
}

/** A reader's text on one line, cut at MAX_QUOTE characters. */
function quote(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE - 1)}…` : line;
}
