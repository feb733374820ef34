/**
 * `mintlify-exporter enqueue`: puts follow-up prompts on the FIFO queue, checked first with the
 * consumer's own rules.
 *
 *   enqueue --queue-url URL --job ID --prompt TEXT [--project ID] [--request-id ID] [--json]
 *   enqueue --queue-url URL --file prompts.jsonl|- [--json]
 *
 * A bad prompt (or line) refuses everything, before anything is sent: exit 2 with its line and
 * reason. Then one line per prompt on stdout (its request id and job; `--json`: one JSON
 * object), a summary on stderr; exit 1 when some prompt is not on the queue (named, with why).
 */
import { readFile } from 'node:fs/promises';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { Option, type Command } from 'commander';
import { loadConfig } from '../settings/config.js';
import { checkedSqsClient } from './aws-settings.js';
import { ConfigError } from '../shared/errors.js';
import { sendPrompts } from '../producer/enqueue.js';
import { checkPrompt, checkPrompts, decodePromptFile, promptLines, type CheckedPrompt } from '../producer/prompts.js';
import { EXIT_STOPPED, type CliIo } from './io.js';
import { printEnqueue } from './render/enqueue.js';

export interface EnqueueCommandIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env' | 'stopSignal' | 'organisations'> {
  /** What `--file -` reads. @default process.stdin */
  readonly stdin?: AsyncIterable<string | Buffer>;
  setExitCode(code: number): void;
  /** Test hooks: an SQS client (emulator) and the wait between re-sends. */
  readonly clients?: { readonly sqs?: SQSClient };
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface EnqueueFlags {
  readonly queueUrl: string;
  readonly project?: string;
  readonly job?: string;
  readonly prompt?: string;
  readonly requestId?: string;
  readonly file?: string;
  readonly json?: boolean;
}

export function registerEnqueueCommand(program: Command, io: EnqueueCommandIo): void {
  program
    .command('enqueue')
    .description("Check follow-up prompts with the consumer's rules, then put them on the FIFO queue (nothing is sent if one is bad).")
    .requiredOption('--queue-url <url>', 'the follow-up queue (stack output FollowUpQueueUrl)')
    .option('--project <id>', 'project id (default: the one project of MINTLIFY_PROJECT_IDS)')
    .option('--job <id>', 'agent job id')
    .option('--prompt <text>', 'the follow-up instruction')
    .option('--request-id <id>', 'idempotency key (default: a new one, printed)')
    .addOption(new Option('--file <path>', 'one queue message (JSON) per line; - reads stdin').conflicts(['project', 'job', 'prompt', 'requestId']))
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: EnqueueFlags) => {
      io.setExitCode(await runEnqueueCommand(flags, io));
    });
}

/** Returns the exit code; throws ConfigError (exit 2) for bad input, before anything is sent. */
export async function runEnqueueCommand(flags: EnqueueFlags, io: EnqueueCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  queueHost(flags.queueUrl);
  const prompts = flags.file === undefined ? [fromFlags(flags, config.projectIds, io.organisations)] : await fromFile(flags.file, config.projectIds, io);
  const sqs = io.clients?.sqs ?? (await checkedSqsClient(flags.queueUrl, config));
  const stop = new AbortController();
  void io.stopSignal.then(() => stop.abort());
  const report = await sendPrompts(prompts, { queueUrl: flags.queueUrl, sqs, stop: stop.signal, ...(io.sleep ? { sleep: io.sleep } : {}) });
  printEnqueue(report, flags, io);
  if (report.stopped) return EXIT_STOPPED;
  return report.notSent.length > 0 ? 1 : 0;
}

function fromFlags(flags: EnqueueFlags, projectIds: readonly string[], organisations: EnqueueCommandIo['organisations']): CheckedPrompt {
  if (flags.job === undefined || flags.prompt === undefined) {
    throw new ConfigError('give --job and --prompt (and --project unless MINTLIFY_PROJECT_IDS names one project), or --file with one message per line');
  }
  const result = checkPrompt(
    {
      jobId: flags.job,
      prompt: flags.prompt,
      ...(flags.project === undefined ? {} : { projectId: flags.project }),
      ...(flags.requestId === undefined ? {} : { requestId: flags.requestId }),
    },
    1,
    { projectIds, organisations },
  );
  if (!result.ok) throw new ConfigError(`not sent: ${result.reason.replace(/^(projectId|jobId|prompt|requestId)\b/, (field) => FLAG_OF[field] ?? field)}`);
  return result.prompt;
}

const FLAG_OF: Record<string, string> = { projectId: '--project', jobId: '--job', prompt: '--prompt', requestId: '--request-id' };

async function fromFile(file: string, projectIds: readonly string[], io: EnqueueCommandIo): Promise<CheckedPrompt[]> {
  const name = file === '-' ? 'stdin' : file;
  let bytes: Uint8Array;
  try {
    bytes = file === '-' ? await readAll(io.stdin ?? process.stdin) : await readFile(file);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES')
      throw new ConfigError(`--file ${file} cannot be read (${code}): give a JSONL file, or - for stdin`);
    throw error;
  }
  const { inputs, makeRequestId } = promptLines(decodePromptFile(bytes, name));
  return checkPrompts(inputs, { projectIds, makeRequestId, what: name, organisations: io.organisations });
}

async function readAll(stream: AsyncIterable<string | Buffer>): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

function queueHost(queueUrl: string): void {
  let url: URL;
  try {
    url = new URL(queueUrl);
  } catch {
    throw new ConfigError(
      `--queue-url "${queueUrl.slice(0, 80)}" is not a URL: use the stack output FollowUpQueueUrl (https://sqs.<region>.amazonaws.com/<account>/<name>.fifo)`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`--queue-url must be an http(s) URL: use the stack output FollowUpQueueUrl`);
  }
}
