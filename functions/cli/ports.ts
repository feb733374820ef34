/**
 * A port a command listens on that it cannot have: one line naming the port and the flag that
 * chooses another, instead of the `EADDRINUSE` stack trace of a server's `listen`.
 */
import { ConfigError } from '../shared/errors.js';

/** `error` as the ConfigError (exit 2) to throw when it is a port that cannot be had; else undefined. */
export function portProblem(error: unknown, port: number, flag: string): ConfigError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(`port ${port} on 127.0.0.1 is in use (another program listens there): choose another with ${flag} N, or ${flag} 0 for a free one`);
  }
  if (code === 'EACCES') {
    return new ConfigError(`port ${port} on 127.0.0.1 needs privileges this user lacks: choose a port above 1023 with ${flag} N, or ${flag} 0 for a free one`);
  }
  return undefined;
}

/** Runs `listen`; a port that cannot be had becomes portProblem's one line. */
export async function listenOn<T>(port: number, flag: string, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    throw portProblem(error, port, flag) ?? error;
  }
}
