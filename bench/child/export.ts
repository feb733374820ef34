/**
 * Child process of figure 4: one whole export of one day, wired as the Lambda wires it
 * (`createApiClient` + `openDestination` + `exportDays`), then its own peak RSS. Bundled like
 * a handler (bench/lib/bundle.ts) so the process holds what a Lambda holds, no TypeScript
 * loader. Input: one JSON argument; output: one JSON line on stdout.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { createApiClient } from '../../functions/shared/api-client.js';
import { openDestination } from '../../functions/shared/destinations.js';
import { exportDays } from '../../functions/export/run.js';

export interface ExportChildInput {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly projectId: string;
  readonly day: string;
  /** A local directory or `s3://bucket/prefix`. */
  readonly destination: string;
  /** The S3 emulator's endpoint, for `s3://` destinations. */
  readonly s3Endpoint?: string;
}

export interface ExportChildOutput {
  readonly ok: boolean;
  readonly error?: string;
  readonly rows: number;
  readonly bytes: number;
  readonly requests: number;
  readonly ms: number;
  /** `process.resourceUsage().maxRSS`: peak resident set, KiB. */
  readonly maxRssKiB: number;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as ExportChildInput;
  // The emulator settings of test/helpers/emulators.ts (emulatorS3Config), inlined so the
  // bundle does not pull in the emulators themselves.
  const s3Client = input.s3Endpoint
    ? new S3Client({
        endpoint: input.s3Endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      })
    : undefined;
  const destination = openDestination(input.destination, s3Client ? { s3Client } : {});
  const api = createApiClient({ baseUrl: input.apiUrl, apiKey: input.apiKey });
  const started = performance.now();
  const summary = await exportDays(
    [{ projectId: input.projectId, day: input.day }],
    { limit: 250, maxPages: 10_000, exportedAt: Date.now() },
    { api, destination, now: Date.now },
  );
  const ms = performance.now() - started;
  const day = summary.days[0];
  const output: ExportChildOutput = {
    ok: summary.ok,
    ...(day && !day.ok ? { error: day.error } : {}),
    rows: day?.ok ? day.manifest.rows.pages : 0,
    bytes: day?.ok ? day.manifest.bytes.pages : 0,
    requests: summary.requests,
    ms,
    maxRssKiB: process.resourceUsage().maxRSS,
  };
  s3Client?.destroy();
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`export child failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
