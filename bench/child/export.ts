/**
 * Child process of figure 4: one whole unit exported, wired as the Lambda wires a run
 * (`openDestination` + budget ledger and gate + `createApiClient({ budget })` + leases +
 * `runUnits`, production defaults from `loadConfig`), then its own peak RSS. Bundled like a
 * handler (bench/lib/bundle.ts) so the process holds what a Lambda holds, no TypeScript
 * loader. Input: one JSON argument; output: one JSON line on stdout.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { DATASETS } from '../../functions/export/datasets.js';
import type { DatasetName } from '../../functions/warehouse/catalog.js';
import { openDestination } from '../../functions/shared/storage/destinations.js';
import { parsePolicyOverrides, resolvePolicy } from '../../functions/warehouse/column-policy.js';
import { createEngine, defaultSettings, unitOf } from '../lib/engine.js';

export interface ExportChildInput {
  readonly apiUrl: string;
  readonly apiKey: string;
  /** @default 'visitors' */
  readonly dataset?: DatasetName;
  readonly projectId: string;
  readonly day: string;
  /** A local directory or `s3://bucket/prefix`. */
  readonly destination: string;
  /** The S3 emulator's endpoint, for `s3://` destinations. */
  readonly s3Endpoint?: string;
  /** Every personal column kept as sent (the policy off). @default false: the production defaults (mask, hmac) */
  readonly keepPersonalData?: boolean;
}

export interface ExportChildOutput {
  readonly ok: boolean;
  readonly error?: string;
  /** Rows of the dataset's streamed table (visitors_pages, assistant_conversations, …). */
  readonly rows: number;
  readonly bytes: number;
  readonly requests: number;
  readonly ms: number;
  /** `process.resourceUsage().maxRSS`: peak resident set, KiB. */
  readonly maxRssKiB: number;
}

/** Every personal column kept: the policy off. */
const KEEP_ALL = 'feedback.contact=keep,feedback.comment=keep,feedback.code=keep,searches.search_query=keep,assistant.query=keep,assistant.response=keep';

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as ExportChildInput;
  const dataset = input.dataset ?? 'visitors';
  // The emulator settings of scripts/lib/s3-sqs.ts (emulatorS3Config), inlined so the
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
  const started = performance.now();
  await destination.probe();
  const engine = createEngine({ apiUrl: input.apiUrl, apiKey: input.apiKey, destination });
  const settings = input.keepPersonalData
    ? defaultSettings({ personalData: resolvePolicy(parsePolicyOverrides(KEEP_ALL, 'keepPersonalData')) })
    : defaultSettings();
  const summary = await engine.run([unitOf(dataset, input.projectId, input.day)], settings);
  const ms = performance.now() - started;
  const unit = summary.units[0];
  const table = DATASETS[dataset].table.name;
  const output: ExportChildOutput = {
    ok: summary.ok,
    ...(unit?.status === 'failed' ? { error: unit.error } : unit && unit.status !== 'complete' ? { error: unit.status } : {}),
    rows: unit?.status === 'complete' ? (unit.manifest.rows[table] ?? 0) : 0,
    bytes: unit?.status === 'complete' ? (unit.manifest.bytes[table] ?? 0) : 0,
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
