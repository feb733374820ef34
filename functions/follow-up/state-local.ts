/**
 * The state store in a local directory, for the CLI on one machine: one JSON file per
 * request. Creation is `link(temp, file)` (fails if the file exists, and never exposes a
 * half-written file); updates take a per-key lock file (created exclusively: opening fails
 * if it exists), compare the version, then `rename` a temp file over the record.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FollowUpState, StateDraft, StateStore } from './state.js';

export interface LocalStateStoreOptions {
  /** A lock older than this is a crashed writer's and is broken (ms). @default 30_000 */
  readonly staleLockMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export function createLocalStateStore(dir: string, options: LocalStateStoreOptions = {}): StateStore {
  const staleLockMs = options.staleLockMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const fileOf = (requestId: string) => join(dir, `${encodeURIComponent(requestId)}.json`);
  let ready: Promise<unknown> | undefined;
  // Private (0700/0600): the state names jobs and holds what the service answered.
  const ensureDir = () => (ready ??= mkdir(dir, { recursive: true, mode: 0o700 }));

  async function read(requestId: string): Promise<FollowUpState | undefined> {
    try {
      return JSON.parse(await readFile(fileOf(requestId), 'utf8')) as FollowUpState;
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      throw error;
    }
  }

  async function writeTemp(requestId: string, state: FollowUpState): Promise<string> {
    const temp = join(dir, `.${encodeURIComponent(requestId)}.${randomBytes(6).toString('hex')}.tmp`);
    await writeFile(temp, JSON.stringify(state), { flag: 'wx', mode: 0o600 });
    return temp;
  }

  async function withLock<T>(requestId: string, action: () => Promise<T>): Promise<T> {
    const lock = `${fileOf(requestId)}.lock`;
    for (;;) {
      try {
        const handle = await open(lock, 'wx', 0o600);
        await handle.close();
        break;
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw error;
        const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
        if (age > staleLockMs) await unlink(lock).catch(() => undefined);
        else await sleep(5);
      }
    }
    try {
      return await action();
    } finally {
      await unlink(lock).catch(() => undefined);
    }
  }

  return {
    async get(requestId) {
      await ensureDir();
      return read(requestId);
    },

    async put(draft: StateDraft, expectedVersion) {
      await ensureDir();
      const state: FollowUpState = { ...draft, version: (expectedVersion ?? 0) + 1 };
      const temp = await writeTemp(draft.requestId, state);
      if (expectedVersion === undefined) {
        try {
          await link(temp, fileOf(draft.requestId));
          return state;
        } catch (error) {
          if (isCode(error, 'EEXIST')) return undefined;
          throw error;
        } finally {
          await unlink(temp).catch(() => undefined);
        }
      }
      return withLock(draft.requestId, async () => {
        const current = await read(draft.requestId);
        if (current?.version !== expectedVersion) {
          await unlink(temp).catch(() => undefined);
          return undefined;
        }
        await rename(temp, fileOf(draft.requestId));
        return state;
      });
    },
  };
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
