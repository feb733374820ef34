/**
 * The state every run of one deployment shares — the request budget ledger, unit leases, the
 * backlog — is a handful of small JSON documents. All the coordination this project needs is
 * an atomic read-modify-write on one document, so that is the whole interface: one
 * implementation per place the state can live (memory for tests, a local directory for the
 * CLI, a DynamoDB table in AWS), and the budget and lease logic written once on top of it.
 */
import { ConfigError } from '../errors.js';

/** A small JSON document store with atomic read-modify-write, shared by every run of one deployment. */
export interface SharedStore {
  /** Where it lives, for messages (a directory, or `dynamodb://table`). */
  readonly description: string;
  get<T>(key: string): Promise<T | undefined>;
  /**
   * Atomically applies `change` to the document at `key` (undefined when absent) and stores
   * `value` (undefined deletes the document). `change` may run more than once under contention,
   * so it must be pure. Resolves with `result`.
   */
  update<T, R>(key: string, change: (current: T | undefined) => { readonly value: T | undefined; readonly result: R }): Promise<R>;
  /** Every document whose key starts with `prefix` (any order). */
  list<T>(prefix: string): Promise<Array<{ readonly key: string; readonly value: T }>>;
}

const KEY_PATTERN = /^[A-Za-z0-9_./:#=-]{1,512}$/;

/**
 * Throws ConfigError unless the key is 1–512 chars of [A-Za-z0-9_./:#=-] with no empty, "." or
 * ".." segment between "/". Keys become file names and DynamoDB keys: this keeps them safe for
 * both, and keeps two spellings of one path (`a//b`, `a/./b`) from naming two documents.
 */
export function checkStoreKey(key: string): string {
  const badSegment = key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
  if (!KEY_PATTERN.test(key) || badSegment) {
    throw new ConfigError(`"${key.slice(0, 60)}" is not a state key: use 1–512 letters, digits or _ . / : # = -, with no empty, "." or ".." part between "/"`);
  }
  return key;
}

/**
 * A store in this process's memory: for tests and for a single run that shares nothing.
 * Documents are kept as JSON text, like the other stores keep them, so a caller mutating an
 * object it passed in or got back never changes the stored document, and a value that does
 * not survive JSON (a Date, an undefined field) comes back as it would from a file or table.
 */
export function createMemoryStore(): SharedStore {
  const documents = new Map<string, string>();
  const read = <T>(key: string): T | undefined => {
    const text = documents.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  };

  return {
    description: 'memory',

    async get<T>(key: string) {
      return read<T>(checkStoreKey(key));
    },

    async update<T, R>(key: string, change: (current: T | undefined) => { readonly value: T | undefined; readonly result: R }) {
      checkStoreKey(key);
      // No await between the read and the write: one turn of the event loop is atomic.
      const { value, result } = change(read<T>(key));
      if (value === undefined) documents.delete(key);
      else documents.set(key, JSON.stringify(value));
      return result;
    },

    async list<T>(prefix: string) {
      // A prefix is acceptable when some valid key starts with it.
      if (prefix !== '') checkStoreKey(`${prefix}x`);
      return [...documents.keys()].filter((key) => key.startsWith(prefix)).map((key) => ({ key, value: read<T>(key) as T }));
    },
  };
}
