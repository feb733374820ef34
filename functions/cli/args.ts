/**
 * Argument parsers for commander options. What they throw is the reason commander prints on its
 * one line ("error: option '--port <n>' argument 'x' is invalid. use a port from 0 to 65535"):
 * exit 2, before anything runs.
 */
import { InvalidArgumentError } from 'commander';

/** A whole number from `min` to `max`; `message` says what to give instead. */
export function wholeNumberArg(min: number, max: number, message: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(message);
    return n;
  };
}

/** `validate` as a parser: the message of what it throws becomes the reason. */
export function validatedArg<T>(validate: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return validate(value);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}
