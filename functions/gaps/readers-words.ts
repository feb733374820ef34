/**
 * Readers' words in a gap's evidence: each value cleaned and cut by `readerText`
 * (shared/reader-text.ts), labelled with what it is, and what a reviewer should know about them
 * — how many were cut or cleaned, and whether they read like instructions (role markers,
 * imperatives aimed at an assistant, links). `gaps` prints this; the prompts use the same values.
 */
import { type CleanedReaderText, cleanReaderText, type ReaderTextKind } from '../shared/reader-text.js';
import type { GapEvidence } from './gaps.js';

/** What a value of the evidence is, as its line in a prompt's block names it. */
export type ReaderValueLabel = 'topic' | 'search term' | 'page' | 'question' | 'comment';

export interface ReaderValue {
  readonly label: ReaderValueLabel;
  readonly kind: ReaderTextKind;
  /** The value as read from the warehouse. */
  readonly raw: string;
  readonly shown: CleanedReaderText;
}

/** Signs that readers' words read like instructions, in the order they are listed. */
export const INSTRUCTION_SIGNS = ['role marker', 'instructions to an assistant', 'link'] as const;
export type InstructionSign = (typeof INSTRUCTION_SIGNS)[number];

/** What a reviewer should know about a gap's readers' words. */
export interface EvidenceCheck {
  /** Values of the evidence (the key and its examples). */
  readonly values: number;
  /** Values cut at their limit. */
  readonly cut: number;
  /** Values with something removed or rewritten (line breaks, controls, bidi, zero-width, e-mail addresses, links). */
  readonly cleaned: number;
  /** Signs of instructions, in INSTRUCTION_SIGNS order (empty: none). */
  readonly flags: readonly InstructionSign[];
}

/**
 * The evidence's readers' words, its key first (a topic, a search term, a path), then its
 * examples in their order, each once: a value shown as one already listed (the same comment
 * left twice, two questions that read alike once cleaned) is left out, so a prompt never
 * repeats a line of its evidence.
 */
export function readerValuesOf(evidence: GapEvidence): ReaderValue[] {
  const value = (label: ReaderValueLabel, kind: ReaderTextKind, raw: string): ReaderValue => ({ label, kind, raw, shown: cleanReaderText(raw, kind) });
  const values = (() => {
    switch (evidence.kind) {
      case 'unanswered_topic':
        return [value('topic', 'category', evidence.topic), ...evidence.examples.map((text) => value('question', 'quote', text))];
      case 'search_without_clicks':
        return [value('search term', 'quote', evidence.query)];
      case 'thumbs_down_page':
        return [value('page', 'path', evidence.path), ...evidence.comments.map((text) => value('comment', 'quote', text))];
    }
  })();
  const seen = new Set<string>();
  return values.filter(({ label, shown }) => {
    // The line as a prompt shows it (its label and cleaned text), whatever its case.
    const line = `${label}\u0000${shown.text.toLowerCase()}`;
    if (seen.has(line)) return false;
    seen.add(line);
    return true;
  });
}

/**
 * Role markers of chat formats and prompt templates: `SYSTEM:`, `assistant:`, `<|im_start|>`,
 * `[INST]`, `<<SYS>>`, a `## New instructions` heading. Every pattern is bounded: linear time.
 */
const ROLE_MARKERS = [
  /\b(system|assistant|developer)\s{0,3}:/i,
  /<\|?\s{0,3}(im_start|im_end|system|endoftext)/i,
  /\[\/?(inst|sys)\]/i,
  /<<\/?sys>>/i,
  /#{1,6}\s{0,3}(new |system |updated |real )?(instructions?|prompt)\b/i,
];

/** Imperatives aimed at an assistant or agent (checked on the cleaned, one-line text). */
const IMPERATIVES = [
  /\b(ignore|disregard|forget|override)\b[^.!?]{0,40}\b(instructions?|prompts?|rules|directions|guidelines)\b/i,
  /\byour (real|new|actual|true|only|next) (task|job|instructions?|goal)\b/i,
  /\b(new|updated|real) instructions\b/i,
  /\byou are (now )?(an? )?([a-z-]{1,20} )?(ai|assistant|agent|chatbot|language model|llm|admin)\b/i,
  /\b(delete|remove|rm)\s{1,3}(-rf\s{1,3})?\S{0,100}\.(mdx?|json|ya?ml)\b/i,
  /\b(open|create|merge|approve)\s{1,3}(a\s{1,3}|the\s{1,3})?(pull request|pr)\b/i,
  /\b(do not|don't) (tell|mention|reveal)\b/i,
];

/** The signs of instructions in the values as shown. */
export function instructionSignsOf(values: readonly ReaderValue[]): InstructionSign[] {
  const signs = new Set<InstructionSign>();
  for (const { shown } of values) {
    if (ROLE_MARKERS.some((pattern) => pattern.test(shown.text))) signs.add('role marker');
    if (IMPERATIVES.some((pattern) => pattern.test(shown.text))) signs.add('instructions to an assistant');
    if (shown.link) signs.add('link');
  }
  return INSTRUCTION_SIGNS.filter((sign) => signs.has(sign));
}

/** How many of the evidence's values were cut or cleaned, and the signs of instructions in them. */
export function checkEvidence(evidence: GapEvidence): EvidenceCheck {
  const values = readerValuesOf(evidence);
  return {
    values: values.length,
    cut: values.filter((v) => v.shown.cut).length,
    cleaned: values.filter((v) => v.shown.cleaned).length,
    flags: instructionSignsOf(values),
  };
}

/** What tidying readers' words does, in a docs lead's words. */
const TIDIED = 'e-mail addresses hidden, links made unclickable, line breaks and invisible characters taken out';

/**
 * What was done to the readers' words quoted, in words a docs lead reads (not "0 of 3 cut, 2
 * cleaned"): `2 of 3 quotes from readers tidied before use (e-mail addresses hidden, …); 1
 * shortened to fit`. '' when nothing was done to them.
 */
export function readersWordsNote(counts: Pick<EvidenceCheck, 'values' | 'cut' | 'cleaned'>): string {
  const quotes = `${counts.values} quote${counts.values === 1 ? '' : 's'} from readers`;
  const parts = [
    ...(counts.cleaned > 0 ? [`${counts.cleaned} of ${quotes} tidied before use (${TIDIED})`] : []),
    ...(counts.cut > 0 ? [`${counts.cut}${counts.cleaned > 0 ? '' : ` of ${quotes}`} shortened to fit`] : []),
  ];
  return parts.join('; ');
}
