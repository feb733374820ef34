import { describe, expect, it } from 'vitest';
import { DriftRecorder, HIDDEN_VALUE, MAX_FIELDS, MAX_NAME_LENGTH, MAX_VALUES, mergeDrift, unknownFieldsColumn } from '../../../functions/export/drift.js';
import { describeRunDrift, describeUnitDrift } from '../../../functions/export/drift-text.js';
import { checkManifest, manifestOf } from '../../../functions/export/manifest.js';
import type { Unit } from '../../../functions/export/unit-id.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, VISITORS_PAGES } from '../../../functions/warehouse/tables.js';

const feedbackRow = (source: string, status = 'pending') => ({ source, status, comment: 'a comment nobody may log' });

describe('DriftRecorder', () => {
  it('has no drift when every field and value is known', () => {
    const drift = new DriftRecorder();
    drift.row(FEEDBACK, feedbackRow('contextual'), undefined);
    drift.topLevelFields([]);

    expect(drift.result()).toBeUndefined();
  });

  it('names unknown fields and the enum values this version does not know, per table, sorted, never other values', () => {
    const drift = new DriftRecorder();
    drift.row(FEEDBACK, feedbackRow('widget', 'archived'), { sentiment: 'neutral' });
    drift.row(FEEDBACK, feedbackRow('agent'), { score: 3, sentiment: 'x' });
    drift.row(ASSISTANT_CONVERSATIONS, { response_type: 'tool_call', resolution_status: 'answered', query: 'secret question' }, undefined);
    drift.topLevelFields(['zeta', 'alpha']);

    expect(drift.result()).toEqual({
      tables: {
        assistant_conversations: { fields: [], values: { response_type: ['tool_call'] } },
        feedback: { fields: ['score', 'sentiment'], values: { source: ['widget'], status: ['archived'] } },
      },
      topLevelFields: ['alpha', 'zeta'],
    });
  });

  it("names the new fields inside known ones by path (a cited source's score)", () => {
    const drift = new DriftRecorder();
    drift.row(ASSISTANT_CONVERSATIONS, { response_type: 'answer', resolution_status: 'answered' }, undefined, ['sources[].score']);

    expect(drift.result()).toEqual({ tables: { assistant_conversations: { fields: ['sources[].score'], values: {} } }, topLevelFields: [] });
  });

  it('names fields called __proto__, constructor and prototype, and a long name cut short', () => {
    const unknown = Object.create(null) as Record<string, unknown>;
    for (const name of ['__proto__', 'constructor', 'prototype', 'x'.repeat(500)]) unknown[name] = 1;
    const drift = new DriftRecorder();
    drift.row(FEEDBACK, feedbackRow('contextual'), unknown);

    expect(drift.result()?.tables['feedback']?.fields).toEqual(['__proto__', 'constructor', 'prototype', `${'x'.repeat(MAX_NAME_LENGTH - 1)}…`]);
  });

  it(`keeps at most ${MAX_VALUES} new values per column (a column that turned into free text)`, () => {
    const drift = new DriftRecorder();
    for (let i = 0; i < 50; i++) drift.row(FEEDBACK, feedbackRow(`kind_${String(i).padStart(2, '0')}`), undefined);

    expect(drift.result()?.tables['feedback']?.values['source']).toHaveLength(MAX_VALUES);
  });

  it('ignores columns that are not enums, whatever their value', () => {
    const drift = new DriftRecorder();
    drift.row(VISITORS_PAGES, { path: '/anything', human: 1 }, undefined);

    expect(drift.result()).toBeUndefined();
  });

  it('never copies a new value that is not an identifier (free text) into the drift', () => {
    const drift = new DriftRecorder();
    drift.row(FEEDBACK, feedbackRow('Call me at jane@example.com please'), undefined);

    expect(drift.result()?.tables['feedback']?.values['source']).toEqual([HIDDEN_VALUE]);
  });
});

describe('mergeDrift', () => {
  it('keeps the union bounded and the count of names left out', () => {
    const names = (from: number) => Array.from({ length: MAX_FIELDS }, (_, i) => `f${String(from + i).padStart(4, '0')}`);
    const a = { tables: { feedback: { fields: names(0), moreFields: 7, values: {} } }, topLevelFields: [] };
    const b = { tables: { feedback: { fields: names(MAX_FIELDS), values: {} } }, topLevelFields: [] };

    const merged = mergeDrift(a, b)?.tables['feedback'];

    expect(merged?.fields).toEqual(names(0));
    expect(merged?.moreFields).toBe(7 + MAX_FIELDS);
  });

  it('unites the drift of two units', () => {
    const a = { tables: { feedback: { fields: ['sentiment'], values: { source: ['widget'] } } }, topLevelFields: [] };
    const b = { tables: { feedback: { fields: ['score'], values: { source: ['email'], status: ['archived'] } } }, topLevelFields: ['x'] };

    expect(mergeDrift(a, b)).toEqual({
      tables: { feedback: { fields: ['score', 'sentiment'], values: { source: ['email', 'widget'], status: ['archived'] } } },
      topLevelFields: ['x'],
    });
    expect(mergeDrift(undefined, a)).toBe(a);
  });
});

describe('describeRunDrift', () => {
  it('names tables, fields and quoted values in one line, control characters removed and long values cut', () => {
    const line = describeRunDrift(
      { tables: { feedback: { fields: ['senti\u001b[31mment'], values: { source: ['wid\nget', 'x'.repeat(80)] } } }, topLevelFields: ['meta'] },
      { dataset: 'feedback', units: 2 },
    );

    expect(line).not.toMatch(/[\u0000-\u001f]/);
    expect(line).toContain('in 2 unit(s)');
    expect(line).toContain('new field(s) feedback.senti\\u001B[31mment (kept in unknown_fields)');
    expect(line).toContain(`feedback.source "wid\\\\u000Aget", "${'x'.repeat(37)}..."`);
    expect(line).toContain('new top-level field(s) meta (named in the manifest; their values were not kept)');
  });

  it('says "nothing was lost" only when no top-level value was dropped', () => {
    const fieldsOnly = describeRunDrift({ tables: { feedback: { fields: ['sentiment'], values: {} } }, topLevelFields: [] }, { dataset: 'feedback', units: 1 });
    const withTop = describeRunDrift({ tables: {}, topLevelFields: ['meta'] }, { dataset: 'feedback', units: 1 });

    expect(fieldsOnly).toContain('; nothing was lost');
    expect(withTop).not.toContain('nothing was lost');
    expect(withTop).toContain('their values were not kept); nothing else was lost');
  });

  it('shows a right-to-left override and a zero-width space as visible escapes, never raw', () => {
    const line = describeRunDrift(
      { tables: { feedback: { fields: ['gnp\u202E.exe', 'a\u200Bb'], values: {} } }, topLevelFields: ['\u0085x'] },
      { dataset: 'feedback', units: 1 },
    );

    expect(line).not.toMatch(/[\u202E\u200B\u0085]/);
    expect(line).toContain('feedback.gnp\\u202E.exe');
    expect(line).toContain('feedback.a\\u200Bb');
    expect(line).toContain('\\u0085x');
  });

  it('lists a bounded number of names and says how many more', () => {
    const recorder = new DriftRecorder();
    recorder.row(FEEDBACK, feedbackRow('contextual'), Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`field_${String(i).padStart(5, '0')}`, i])));
    recorder.topLevelFields(Array.from({ length: 10_000 }, (_, i) => `top_${i}`));
    const drift = recorder.result();

    const line = describeRunDrift(drift ?? { tables: {}, topLevelFields: [] }, { dataset: 'feedback', units: 1 });

    expect(drift?.tables['feedback']?.fields).toHaveLength(MAX_FIELDS);
    expect(drift?.tables['feedback']?.moreFields).toBe(10_000 - MAX_FIELDS);
    expect(drift?.topLevelFields).toHaveLength(MAX_FIELDS);
    expect(drift?.moreTopLevelFields).toBe(10_000 - MAX_FIELDS);
    expect(JSON.stringify(drift).length).toBeLessThan(8_000);
    expect(line.length).toBeLessThan(1_000);
    expect(line).toContain(`feedback.field_00009 and ${10_000 - 10} more`);
  });
});

describe("describeUnitDrift: one unit's drift (the report's calendar)", () => {
  it('names new fields and values per table, and new top-level fields', () => {
    expect(describeUnitDrift({ tables: { feedback: { fields: ['sentiment'], values: { source: ['widget', 'slack'] } } }, topLevelFields: ['newKey'] })).toBe(
      'feedback: new field sentiment; new value source = widget, slack · answer: new field newKey',
    );
  });

  it('reads an absent or empty drift as no drift', () => {
    expect(describeUnitDrift(undefined)).toBeUndefined();
    expect(describeUnitDrift({ tables: {}, topLevelFields: [] })).toBeUndefined();
    expect(describeUnitDrift({ tables: { t: { fields: [], values: {} } }, topLevelFields: [] })).toBeUndefined();
  });
});

describe("a manifest's drift, read through MANIFEST_DRIFT", () => {
  const unit: Unit = { dataset: 'feedback', projectId: 'proj_a', day: '2026-03-01' };
  const manifest = manifestOf({
    unit,
    state: { kind: 'single', pages: 1, truncated: false },
    tables: [{ table: 'feedback', key: 'k', rows: 1, bytes: 1 }],
    drift: undefined,
    exportedAt: new Date('2026-03-02T00:00:00Z'),
    finishedAt: Date.parse('2026-03-02T00:01:00Z'),
    durationMs: 1,
    invalidUtf8: 0,
    requests: { successful: 1, sent: 1, retried: 0 },
    runs: 1,
  });
  const driftRead = (drift: unknown) => {
    const reading = checkManifest(JSON.parse(JSON.stringify({ ...manifest, drift })), unit);
    if (!('manifest' in reading)) throw new Error(reading.problem);
    return reading.manifest.drift;
  };

  it('is the drift written, typed: the calendar names it', () => {
    const drift = { tables: { feedback: { fields: ['sentiment'], moreFields: 2, values: { source: ['widget'] } } }, topLevelFields: ['meta'] };

    expect(driftRead(drift)).toEqual(drift);
    expect(describeUnitDrift(driftRead(drift))).toBe('feedback: new field sentiment; new value source = widget · answer: new field meta');
  });

  it('takes a part an older manifest lacks as none', () => {
    expect(driftRead({ tables: { t: { fields: ['x'] } } })).toEqual({ tables: { t: { fields: ['x'], values: {} } }, topLevelFields: [] });
    expect(driftRead({ topLevelFields: ['y'] })).toEqual({ tables: {}, topLevelFields: ['y'] });
  });

  it('reads a malformed drift as no drift, and the unit stays complete', () => {
    for (const drift of [null, 'x', 3, { tables: { t: { fields: 'oops' } } }, { tables: 'x' }, { topLevelFields: [1] }]) {
      expect(driftRead(drift), JSON.stringify(drift)).toBeUndefined();
    }
    expect(describeUnitDrift(driftRead({ tables: { t: { fields: 'oops' } } }))).toBeUndefined();
  });
});

describe('unknownFieldsColumn', () => {
  it('is null without unknown fields, else their JSON, nested values whole', () => {
    expect(unknownFieldsColumn(undefined)).toBeNull();
    expect(unknownFieldsColumn({ searches: [{ query: 'q', results: 2 }] })).toBe('{"searches":[{"query":"q","results":2}]}');
  });

  it('writes a large integer with every digit and a field named __proto__ as a field', () => {
    const unknown = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    unknown['id'] = 12345678901234567890123n;

    expect(unknownFieldsColumn(unknown)).toBe('{"__proto__":{"polluted":true},"id":12345678901234567890123}');
  });
});
