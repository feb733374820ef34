/**
 * The reference tables of docs/deploy.md, generated from the code so they cannot go stale: the
 * CDK context options (what each accepts comes from the validators of infra/stack.ts, meaning
 * and default from infra/context-options.ts) and the stack outputs (infra/stack.ts's
 * STACK_OUTPUTS, which also give the template its descriptions). `npm run docs` writes them
 * between their markers; a test fails when the file holds another text.
 */
import { CONTEXT_OPTIONS } from '../infra/context-options.js';
import { ContextSchema, STACK_OUTPUTS } from '../infra/stack.js';

export const CONTEXT_BEGIN = '<!-- context-options:begin (generated from infra/stack.ts and infra/context-options.ts by `npm run docs`; do not edit) -->';
export const CONTEXT_END = '<!-- context-options:end -->';
export const OUTPUTS_BEGIN = '<!-- stack-outputs:begin (generated from infra/stack.ts by `npm run docs`; do not edit) -->';
export const OUTPUTS_END = '<!-- stack-outputs:end -->';

/** A valibot schema or action, as far as this walk reads it. */
interface Node {
  readonly kind?: string;
  readonly type?: string;
  readonly message?: unknown;
  readonly wrapped?: Node;
  readonly item?: Node;
  readonly options?: readonly unknown[];
  readonly pipe?: readonly Node[];
}

/** The messages of a schema's validations, in order, once each: what a value must be. */
export function acceptedBy(schema: Node): string[] {
  const found: string[] = [];
  const walk = (node: Node): void => {
    if (node.wrapped) walk(node.wrapped);
    if (node.item) walk(node.item);
    if (node.type === 'union') for (const option of (node.options ?? []) as Node[]) walk(option);
    if ((node.kind === 'validation' || node.type === 'picklist') && typeof node.message === 'string') found.push(node.message);
    for (const step of node.pipe ?? []) if (step !== node) walk(step);
  };
  walk(schema);
  return [...new Set(found)];
}

/** A table cell: `|` escaped, and `<…>` outside code spans written as text, not taken for HTML. */
const cell = (text: string) =>
  text
    .split('`')
    .map((part, index) => (index % 2 === 1 ? part : part.replaceAll('<', '&lt;').replaceAll('>', '&gt;')))
    .join('`')
    .replaceAll('|', '\\|');

export function contextReference(): string {
  const entries = ContextSchema.entries as unknown as Record<string, Node>;
  const rows = Object.entries(CONTEXT_OPTIONS).map(([key, option]) => {
    const schema = entries[key];
    const accepts = option.accepts ?? (schema ? acceptedBy(schema).join('; ') : '');
    if (accepts === '') throw new Error(`context option ${key}: neither a validator message nor "accepts" says what it takes`);
    return `| \`${key}\` | ${cell(option.meaning)} | ${cell(accepts)} | ${cell(option.default)} |`;
  });
  return ['| option | meaning | accepts | default |', '|---|---|---|---|', ...rows].join('\n');
}

export function outputsReference(): string {
  const rows = Object.entries(STACK_OUTPUTS).map(([id, description]) => `| \`${id}\` | ${cell(description)} |`);
  return ['| output | what it is for |', '|---|---|', ...rows].join('\n');
}

/** `doc` with both generated tables replaced by fresh ones. */
export function withDeployReference(doc: string): string {
  return between(between(doc, CONTEXT_BEGIN, CONTEXT_END, contextReference()), OUTPUTS_BEGIN, OUTPUTS_END, outputsReference());
}

function between(doc: string, beginMarker: string, endMarker: string, text: string): string {
  const begin = doc.indexOf(beginMarker);
  const end = doc.indexOf(endMarker);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${beginMarker} … ${endMarker} block`);
  return `${doc.slice(0, begin + beginMarker.length)}\n\n${text}\n\n${doc.slice(end)}`;
}
