/**
 * The errors the export's own rooms raise: a page walk that broke its stop rules, a row that does
 * not fit its table. The shared ones (configuration, the API, the destination) are in
 * shared/errors.ts.
 */
import { ExporterError } from '../shared/errors.js';

/** Pagination broke one of its stop rules; the day is not written. */
export class PaginationError extends ExporterError {}

/**
 * A row does not fit its table (missing column, wrong type, unknown column). It is a bug in
 * the caller or bad upstream data, so retrying cannot help.
 */
export class InvalidRowError extends ExporterError {}
