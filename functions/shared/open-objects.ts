/**
 * Open objects and open enums for the API's schemas (schemas.ts): an answer's fields this version
 * does not know are kept as sent — `__proto__` included — and named (`unknownFieldsOf`,
 * `unknownNestedFieldsOf`), and an enum's new values pass as they are.
 */
import * as v from 'valibot';
import type { OpenValue } from './api-enums.js';

/**
 * A field the docs give as an enum (`values`), kept open: any string is accepted and kept as
 * sent, since the service adds values without notice. The known values serve the drift report
 * (tables.ts `knownValues`); a value of another type (a number, null) is still an error.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(_values: T) {
  return v.string('must be a string') as v.GenericSchema<string, OpenValue<T[number]>>;
}

/**
 * The keys valibot's `looseObject` leaves out of its output (it copies unknown keys into a plain
 * object, where `__proto__` would set the prototype). A field of the answer may still be named
 * so: `openObject` keeps them as own data properties, which never touch a prototype.
 */
const GUARDED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/**
 * An object of the answer whose fields this version does not know are kept, as sent (nested
 * values whole), beside the validated ones: they end up in the `unknown_fields` column
 * (`unknownFieldsOf`), never dropped — `__proto__`, `constructor` and `prototype` included.
 * Every object of an analytics answer is one, nested ones too (a cited source): a nested
 * object's column keeps it as sent (`sources_json`) and its new fields are named in the drift
 * (`unknownNestedFieldsOf`).
 */
export function openObject<const TEntries extends v.ObjectEntries, const TMessage extends v.ErrorMessage<v.LooseObjectIssue> | undefined>(
  entries: TEntries,
  message: TMessage,
): v.LooseObjectSchema<TEntries, TMessage> {
  const loose = v.looseObject(entries, message);
  const run: (typeof loose)['~run'] = (dataset, config) => {
    const input: unknown = dataset.value;
    const output = loose['~run'](dataset, config);
    const value: unknown = output.value;
    if (typeof input === 'object' && input !== null && typeof value === 'object' && value !== null) {
      for (const key of GUARDED_KEYS) {
        if (!Object.hasOwn(input, key) || Object.hasOwn(entries, key)) continue;
        Object.defineProperty(value, key, { value: (input as Record<string, unknown>)[key], enumerable: true, writable: true, configurable: true });
      }
    }
    return output;
  };
  // `~standard` (Standard Schema consumers; none here) stays looseObject's own.
  return { ...loose, '~run': run };
}

/** What `unknownFieldsOf` needs of an object schema: the names of the fields it declares. */
export interface KnownFields {
  readonly entries: Readonly<Record<string, unknown>>;
}

/** A record that may hold any key (`__proto__` included) without touching a prototype. */
function emptyRecord(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/**
 * The fields of `value` (an object validated by `schema`) that the schema does not declare,
 * as sent; undefined when there are none. The result has no prototype: a field named
 * `__proto__` is one of its keys like any other, and `JSON.stringify` writes it.
 */
export function unknownFieldsOf(value: object, schema: KnownFields): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(schema.entries, key)) continue;
    extra ??= emptyRecord();
    extra[key] = (value as Record<string, unknown>)[key];
  }
  return extra;
}

/** A schema's inner schema through optional / nullable / nullish wrappers. */
function unwrapped(schema: unknown): { type?: string; entries?: Record<string, unknown>; item?: unknown } {
  let current = schema as { type?: string; wrapped?: unknown };
  while (current.wrapped !== undefined && (current.type === 'optional' || current.type === 'nullable' || current.type === 'nullish')) {
    current = current.wrapped as { type?: string; wrapped?: unknown };
  }
  return current;
}

/**
 * Names of the fields this version does not know inside the known fields of `value` (an object
 * validated by `schema`): `sources[].score` for a new field of a cited source, `a.b` inside an
 * object. The object's own unknown fields are `unknownFieldsOf`'s; these are kept where the
 * nested object is kept (its column, as sent), and named in the drift.
 */
export function unknownNestedFieldsOf(value: object, schema: KnownFields): string[] {
  const names = new Set<string>();
  const visit = (node: unknown, nodeSchema: unknown, prefix: string, top: boolean): void => {
    const inner = unwrapped(nodeSchema);
    if (inner.type === 'array' && Array.isArray(node)) {
      for (const item of node) visit(item, inner.item, `${prefix}[]`, false);
      return;
    }
    if (inner.type !== 'loose_object' || inner.entries === undefined || typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const entries = inner.entries;
    for (const key of Object.keys(node)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (Object.hasOwn(entries, key)) visit((node as Record<string, unknown>)[key], entries[key], path, false);
      else if (!top) names.add(path);
    }
  };
  visit(value, { type: 'loose_object', entries: schema.entries }, '', true);
  return [...names];
}

/**
 * Whether `schema` declares a field that holds an array or an object: the only places
 * `unknownNestedFieldsOf` looks into. Without one it always finds nothing, so a caller may skip
 * it (it runs once per row of every page).
 */
export function hasNestedFields(schema: KnownFields): boolean {
  return Object.values(schema.entries).some((entry) => {
    const type = unwrapped(entry).type;
    return type === 'array' || type === 'loose_object';
  });
}
