import { describe, expect, it } from 'vitest';
import { parquetSchemaFor } from '../../../functions/export/parquet.js';
import { FOLLOWUP_OUTCOMES, VISITORS_PAGES, VISITORS_TOTALS } from '../../../functions/warehouse/tables.js';
import type { TableDef } from '../../../functions/warehouse/table-def.js';

const fieldsOf = (table: TableDef) =>
  parquetSchemaFor(table).fieldList.map((field) => ({
    name: field.name,
    primitiveType: field.primitiveType,
    originalType: field.originalType,
    repetitionType: field.repetitionType,
    compression: field.compression,
  }));

describe('parquetSchemaFor', () => {
  it('has one column per table column, in the table order', () => {
    for (const table of [VISITORS_TOTALS, VISITORS_PAGES, FOLLOWUP_OUTCOMES]) {
      expect(fieldsOf(table).map((field) => field.name)).toEqual(table.columns.map((column) => column.name));
    }
  });

  it('maps visitors_pages to UTF8, DATE, INT64 and TIMESTAMP_MILLIS, all required but the appended unknown_fields', () => {
    expect(fieldsOf(VISITORS_PAGES)).toEqual([
      { name: 'project_id', primitiveType: 'BYTE_ARRAY', originalType: 'UTF8', repetitionType: 'REQUIRED', compression: 'SNAPPY' },
      { name: 'date', primitiveType: 'INT32', originalType: 'DATE', repetitionType: 'REQUIRED', compression: 'SNAPPY' },
      { name: 'path', primitiveType: 'BYTE_ARRAY', originalType: 'UTF8', repetitionType: 'REQUIRED', compression: 'SNAPPY' },
      { name: 'human', primitiveType: 'INT64', originalType: undefined, repetitionType: 'REQUIRED', compression: 'SNAPPY' },
      { name: 'ai', primitiveType: 'INT64', originalType: undefined, repetitionType: 'REQUIRED', compression: 'SNAPPY' },
      { name: 'total', primitiveType: 'INT64', originalType: undefined, repetitionType: 'REQUIRED', compression: 'SNAPPY' },
      {
        name: 'exported_at',
        primitiveType: 'INT64',
        originalType: 'TIMESTAMP_MILLIS',
        repetitionType: 'REQUIRED',
        compression: 'SNAPPY',
      },
      { name: 'unknown_fields', primitiveType: 'BYTE_ARRAY', originalType: 'UTF8', repetitionType: 'OPTIONAL', compression: 'SNAPPY' },
    ]);
  });

  it('makes optional columns OPTIONAL and keeps the others REQUIRED', () => {
    const fields = fieldsOf(FOLLOWUP_OUTCOMES);
    const optional = fields.filter((field) => field.repetitionType === 'OPTIONAL').map((field) => field.name);
    expect(optional).toEqual(FOLLOWUP_OUTCOMES.columns.filter((column) => column.optional).map((column) => column.name));
    expect(optional.length).toBeGreaterThan(0);
  });

  it('maps boolean columns to BOOLEAN', () => {
    const table: TableDef = {
      ...VISITORS_TOTALS,
      columns: [{ name: 'flag', type: 'boolean', optional: true, comment: 'a flag' }],
    };
    expect(fieldsOf(table)).toEqual([{ name: 'flag', primitiveType: 'BOOLEAN', originalType: undefined, repetitionType: 'OPTIONAL', compression: 'SNAPPY' }]);
  });

  it('compresses every column with SNAPPY', () => {
    const compressions = new Set([VISITORS_TOTALS, VISITORS_PAGES].flatMap(fieldsOf).map((field) => field.compression));
    expect([...compressions]).toEqual(['SNAPPY']);
  });
});
