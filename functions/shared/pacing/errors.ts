/**
 * The errors pacing raises: the budget has no room before the deadline, the circuit opened, a
 * lease was lost. None is the user's mistake (exit 1 on the CLI).
 */
import { ExporterError } from '../errors.js';

/**
 * The request budget has no room for another analytics request before the run's deadline.
 * Not a failure: the unit keeps its checkpoint and a later run continues it.
 */
export class BudgetExhaustedError extends ExporterError {
  constructor(
    message: string,
    /** Epoch ms when the next request may start. */
    readonly nextStartAt: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The analytics API failed so many requests in a row, across units, that the run stops early
 * (circuit-breaker.ts) rather than paying every unit's retries. The next run tries again.
 */
export class CircuitOpenError extends ExporterError {}

/** Another run took over a unit's lease (ours expired): stop writing that unit at once. */
export class LeaseLostError extends ExporterError {}
