import { expect } from 'vitest';
import { ConfigError } from '../../functions/shared/errors.js';

/** The ConfigError `fn` throws; fails the test when it throws something else or nothing. */
export function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}
