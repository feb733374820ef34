/** The one SQL string literal both engines read (DuckDB's session, the questions' parameters). */
import { describe, expect, it } from 'vitest';
import { sqlString } from '../../../functions/warehouse/sql.js';

describe('sqlString', () => {
  it('quotes a text, doubling every quote inside it', () => {
    expect(sqlString('2026-11-20')).toBe("'2026-11-20'");
    expect(sqlString("it's 'x'")).toBe("'it''s ''x'''");
    expect(sqlString('')).toBe("''");
  });
});
