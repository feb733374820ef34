/**
 * Where the CLI's API calls go: the real service with a key, or a sandbox embedded in this
 * process without one.
 */
import { validateApiKey, type Config } from '../shared/config.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import type { CliIo } from './io.js';

/** Where the API calls go: the real service with a key, or the embedded sandbox without one. */
export interface ApiTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Projects to use when the user names none. */
  readonly defaultProjects: readonly string[];
  readonly sandbox?: Sandbox;
  close(): Promise<void>;
}

/**
 * With MINTLIFY_API_KEY: the configured API (the key validated first). Without: a sandbox
 * started in this process on 127.0.0.1, so everything runs on a laptop with nothing else.
 */
export async function resolveApiTarget(config: Config, io: Pick<CliIo, 'stderr'>): Promise<ApiTarget> {
  if (config.apiKey !== undefined) {
    return {
      baseUrl: config.apiUrl,
      apiKey: validateApiKey(config.apiKey),
      defaultProjects: config.projectIds,
      close: async () => undefined,
    };
  }
  const sandbox = await startSandbox();
  io.stderr.write(`No MINTLIFY_API_KEY set: using the embedded sandbox API at ${sandbox.url}\n`);
  return {
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    defaultProjects: config.projectIds.length > 0 ? config.projectIds : sandbox.projectIds,
    sandbox,
    close: () => sandbox.close(),
  };
}
