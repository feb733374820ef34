/**
 * Every object of an analytics answer is open (issue 28): a field this version does not know is
 * kept whatever its name or size — inside a cited source, named `__proto__`, an integer past
 * 2^53 — and named, never dropped.
 */
import { describe, expect, it } from 'vitest';
import { DATASET_SPECS } from '../../../functions/export/datasets.js';
import { unknownFieldsColumn } from '../../../functions/export/drift.js';
import { parseJson } from '../../../functions/shared/lossless-json.js';
import {
  AssistantTurnSchema,
  CallerStatsSchema,
  FeedbackByPageRowSchema,
  FeedbackRowSchema,
  PathCountsRowSchema,
  parseAssistantPage,
  SearchRowSchema,
} from '../../../functions/shared/schemas.js';
import { hasNestedFields, unknownFieldsOf, unknownNestedFieldsOf } from '../../../functions/shared/open-objects.js';

const TURN = {
  id: 'c1',
  timestamp: '2026-02-10T10:00:00Z',
  query: 'how?',
  response: 'so.',
  resolutionStatus: 'answered',
  sources: [{ title: 'Intro', url: 'https://docs.example.com/intro' }],
};

/** One assistant page around `turn`, as the API would send its text. */
const pageText = (turn: string) => `{"conversations":[${turn}],"nextCursor":null,"hasMore":false}`;

describe('a cited source (nested in an array)', () => {
  it('keeps a new field as sent in sources_json and names it sources[].score', () => {
    const page = parseAssistantPage(JSON.parse(pageText(JSON.stringify({ ...TURN, sources: [{ ...TURN.sources[0], score: 0.9, snippet: 'Intro…' }] }))));
    const turn = page.conversations[0] as (typeof page.conversations)[number];

    const row = DATASET_SPECS.assistant.toRow(turn, { projectId: 'p', date: '2026-02-10', exportedAt: new Date(0) });

    expect(JSON.parse(String(row['sources_json']))).toEqual([{ title: 'Intro', url: 'https://docs.example.com/intro', score: 0.9, snippet: 'Intro…' }]);
    expect(DATASET_SPECS.assistant.unknownNestedFields(turn)).toEqual(['sources[].score', 'sources[].snippet']);
    expect(DATASET_SPECS.assistant.unknownFields(turn)).toBeUndefined();
  });

  it('names nothing when the sources hold only known fields', () => {
    const turn = parseAssistantPage(JSON.parse(pageText(JSON.stringify(TURN)))).conversations[0] as object;

    expect(unknownNestedFieldsOf(turn, AssistantTurnSchema)).toEqual([]);
  });
});

describe('rows with nothing nested (the walk skipped for them)', () => {
  const FLAT = { PathCountsRowSchema, SearchRowSchema, FeedbackRowSchema, FeedbackByPageRowSchema, CallerStatsSchema };

  it('says which row schemas hold an array or an object: only the assistant turn', () => {
    expect(hasNestedFields(AssistantTurnSchema)).toBe(true);
    for (const [name, schema] of Object.entries(FLAT)) expect(hasNestedFields(schema), name).toBe(false);
  });

  it('finds nothing nested in a flat schema, whatever its fields hold, so skipping the walk loses nothing', () => {
    for (const [name, schema] of Object.entries(FLAT)) {
      const row: Record<string, unknown> = { extra: { deep: 1 }, list: [{ deep: 2 }] };
      for (const key of Object.keys(schema.entries)) row[key] = [{ inner: { deeper: 3 } }];
      expect(unknownNestedFieldsOf(row, schema), name).toEqual([]);
    }
  });
});

describe('fields named __proto__, constructor and prototype', () => {
  it('are kept as fields of the row and of a source, without touching any prototype', () => {
    const text = pageText(
      '{"id":"c1","timestamp":"2026-02-10T10:00:00Z","query":"q","response":"r","resolutionStatus":"answered","__proto__":{"polluted":1},"constructor":"c","prototype":2,' +
        '"sources":[{"title":"t","url":"u","__proto__":{"polluted":2}}]}',
    );
    const turn = parseAssistantPage(parseJson(text)).conversations[0] as object;

    const unknown = unknownFieldsOf(turn, AssistantTurnSchema);

    expect(unknownFieldsColumn(unknown)).toBe('{"__proto__":{"polluted":1},"constructor":"c","prototype":2}');
    expect(unknownNestedFieldsOf(turn, AssistantTurnSchema)).toEqual(['sources[].__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(turn)).toBe(Object.prototype);
  });
});

describe('an unknown integer past 2^53', () => {
  it('keeps every digit in unknown_fields and in sources_json', () => {
    const text = pageText(
      '{"id":"c1","timestamp":"2026-02-10T10:00:00Z","query":"q","response":"r","resolutionStatus":"answered","traceId":12345678901234567890123,' +
        '"sources":[{"title":"t","url":"u","rank":-9007199254740993}]}',
    );
    const turn = parseAssistantPage(parseJson(text)).conversations[0] as ReturnType<typeof parseAssistantPage>['conversations'][number];

    const row = DATASET_SPECS.assistant.toRow(turn, { projectId: 'p', date: '2026-02-10', exportedAt: new Date(0) });

    expect(unknownFieldsColumn(DATASET_SPECS.assistant.unknownFields(turn))).toBe('{"traceId":12345678901234567890123}');
    expect(row['sources_json']).toBe('[{"title":"t","url":"u","rank":-9007199254740993}]');
  });
});
