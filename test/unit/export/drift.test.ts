import { describe, expect, it } from 'vitest';
import { DriftRecorder, HIDDEN_VALUE, MAX_VALUES, describeDrift, mergeDrift, unknownFieldsColumn } from '../../../functions/export/drift.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, VISITORS_PAGES } from '../../../functions/shared/tables.js';

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

describe('describeDrift', () => {
  it('names tables, fields and quoted values in one line, control characters removed and long values cut', () => {
    const line = describeDrift(
      'feedback',
      { tables: { feedback: { fields: ['senti\u001b[31mment'], values: { source: ['wid\nget', 'x'.repeat(80)] } } }, topLevelFields: ['meta'] },
      2,
    );

    expect(line).not.toMatch(/[\u0000-\u001f]/);
    expect(line).toContain('in 2 unit(s)');
    expect(line).toContain('new field(s) feedback.senti[31mment (kept in unknown_fields)');
    expect(line).toContain(`feedback.source "wid get", "${'x'.repeat(37)}..."`);
    expect(line).toContain('new top-level field(s) meta (named in the manifest)');
  });
});

describe('unknownFieldsColumn', () => {
  it('is null without unknown fields, else their JSON, nested values whole', () => {
    expect(unknownFieldsColumn(undefined)).toBeNull();
    expect(unknownFieldsColumn({ searches: [{ query: 'q', results: 2 }] })).toBe('{"searches":[{"query":"q","results":2}]}');
  });
});
