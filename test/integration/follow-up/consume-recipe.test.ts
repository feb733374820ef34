/**
 * The local recipe of `docs/follow-ups.md` ("Try it locally") works as written: its shell
 * blocks — the emulator with a FIFO queue and its dead-letter queue on a free port, the
 * consumer, two prompts, the dead-letter listing — run with bash from the repository folder,
 * with the `export` line terminal 1 printed pasted where the recipe says to, and the
 * destination in a scratch folder. And `consume` on a terminal prints lines a person reads,
 * not JSON records.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { runConsumeCommand } from '../../../functions/cli/consume.js';
import { startSandbox } from '../../../sandbox/index.js';
import { startS3Sqs, TEST_REGION } from '../../../scripts/lib/s3-sqs.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }
  await removeTempDirs();
});

/** The ```sh blocks of the "Try it locally" section, in order. */
async function recipeBlocks(): Promise<string[]> {
  const doc = await readFile(path.join(REPO, 'docs', 'follow-ups.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Try it locally'));
  const end = section.indexOf('\n## ', 5);
  return [...(end === -1 ? section : section.slice(0, end)).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** Runs a block with bash in the repository folder (its own process group, so it can be stopped whole). */
function bash(block: string, env: Record<string, string>): { child: ChildProcess; output(): string; exited: Promise<number | null> } {
  const child = spawn('bash', ['-e', '-c', block], { cwd: REPO, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, context: () => string, timeoutMs = 40_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not seen after ${timeoutMs} ms\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the local consume recipe of docs/follow-ups.md', () => {
  it('runs as written: the emulator on a free port, one prompt completed, one dead-lettered and listed with its reason', async () => {
    // Prepare
    const blocks = await recipeBlocks();
    expect(blocks).toHaveLength(4);
    const [emulatorBlock, consumerBlock, enqueueBlock, listBlock] = blocks as [string, string, string, string];
    const scratch = await makeTempDir('recipe');
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? scratch,
      ...(process.env['TMPDIR'] ? { TMPDIR: process.env['TMPDIR'] } : {}),
      // Isolation from this machine's AWS set-up, and the outcome out of the repository.
      AWS_CONFIG_FILE: path.join(scratch, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(scratch, 'no-aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
      EXPORT_DESTINATION: path.join(scratch, 'data'),
    };
    const outcomeDir = path.join(scratch, 'data', 'followup_outcomes');
    const outcomeOf = (requestId: string) => async () => {
      for (const day of await readdir(outcomeDir).catch(() => [])) {
        const text = await readFile(path.join(outcomeDir, day, `${requestId}.json`), 'utf8').catch(() => undefined);
        if (text !== undefined) return JSON.parse(text) as Record<string, unknown>;
      }
      return undefined;
    };

    // Act: terminal 1, and the export line it prints (on the port it chose)
    const emulator = bash(emulatorBlock, env);
    const exportLine = await waitFor('the export line', async () => /^export .*$/m.exec(emulator.output())?.[0], emulator.output);
    const port = /AWS_ENDPOINT_URL_SQS=http:\/\/127\.0\.0\.1:(\d+)/.exec(exportLine)?.[1] ?? '';
    // The documented export line is the one terminal 1 printed, but for the port.
    const documented = /^export .*$/m.exec(consumerBlock)?.[0] ?? '';
    expect(documented.replaceAll('<port>', port)).toBe(exportLine);
    const pasted = (block: string) => `${exportLine}\n${block.replace(/^export .*\n/m, '')}`;
    const consumer = bash(pasted(consumerBlock), env);
    const enqueue = bash(pasted(enqueueBlock), env);
    const enqueued = await enqueue.exited;
    const context = () => `--- consumer\n${consumer.output()}\n--- enqueue\n${enqueue.output()}\n--- emulator\n${emulator.output().slice(-2000)}`;
    const first = await waitFor('the first outcome', outcomeOf('first-prompt'), context);
    const second = await waitFor('the second outcome', outcomeOf('second-prompt'), context);
    const list = bash(pasted(listBlock), env);
    const listed = await list.exited;
    process.kill(-(consumer.child.pid as number), 'SIGINT');
    await consumer.exited;
    process.kill(-(emulator.child.pid as number), 'SIGINT');
    await emulator.exited;

    // Assess
    expect(emulator.output()).toMatch(/^queue +http:\/\/sqs\.us-east-1\.localhost:\d+\/000000000000\/prompts\.fifo$/m);
    expect(enqueued, enqueue.output()).toBe(0);
    expect(enqueue.output()).toContain('accepted request first-prompt for job job_demo_1 (project proj_small)');
    expect(first).toMatchObject({ request_id: 'first-prompt', project_id: 'proj_small', job_id: 'job_demo_1', status: 'completed', attempts: 1 });
    expect(second).toMatchObject({ request_id: 'second-prompt', job_id: 'job_missing', status: 'rejected' });
    expect(listed, list.output()).toBe(0);
    expect(list.output()).toMatch(/^request second-prompt \(project proj_small, job job_missing, dead-lettered \S+\): rejected\b.*404/m);
    expect(list.output()).toContain('1 message(s) on the dead-letter queue');
    expect(consumer.output()).toContain('No MINTLIFY_API_KEY set: using the embedded sandbox API');
    expect(consumer.output()).toMatch(
      /consuming http:\/\/sqs\.us-east-1\.localhost:\d+\/000000000000\/prompts\.fifo \(dead-letter queue \S*prompts-dlq\.fifo\)/,
    );
    // Ctrl-C in the terminal: the consumer stops cleanly and sums up (npx's own exit status is npm's business).
    expect(consumer.output()).toMatch(/^stopped: 2 received — 1 completed, 1 rejected \(dead-lettered\)$/m);
    await rm(path.join(scratch, 'data'), { recursive: true, force: true });
  }, 120_000);

  it('terminal 1 on a busy port says so in one line naming --port, exit 2', async () => {
    const [emulatorBlock] = await recipeBlocks();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const run = bash(`${emulatorBlock?.trim()} -- --port ${port}`, { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' });
      const code = await run.exited;

      expect(code).toBe(2);
      expect(run.output()).toBe(
        `error: port ${port} on 127.0.0.1 is in use (another program listens there): choose another with --port N, or --port 0 for a free one\n`,
      );
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 30_000);
});

describe('consume on a terminal', () => {
  it('prints one line per event instead of JSON records', async () => {
    // Prepare
    const [sandbox, aws] = await Promise.all([startSandbox({ agent: { activeMs: 200 } }), startS3Sqs()]);
    try {
      const queueUrl = await aws.createQueue('human-lines.fifo', { FifoQueue: 'true' });
      const deadLetterUrl = await aws.createQueue('human-lines-dlq.fifo', { FifoQueue: 'true' });
      const body = { projectId: 'proj_small', jobId: 'job_demo_2', prompt: 'Link the SSO FAQ from the quickstart', requestId: 'req-human' };
      await aws.sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageGroupId: body.jobId, MessageDeduplicationId: body.requestId, MessageBody: JSON.stringify(body) }),
      );
      const dest = await makeTempDir('human-lines');
      let out = '';
      let stop = (): void => undefined;
      const stopSignal = new Promise<void>((resolve) => (stop = resolve));
      const watcher = setInterval(() => out.includes(': completed') && stop(), 20);

      // Act
      const code = await runConsumeCommand(
        { queueUrl, waitSeconds: 0 },
        {
          stdout: { write: (text: string) => (out += text), isTTY: true },
          stderr: { write: () => undefined },
          env: { EXPORT_DESTINATION: dest, FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl, AWS_REGION: TEST_REGION },
          stopSignal,
          resolveApiTarget: async () => ({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, close: async () => undefined }),
          setExitCode: () => undefined,
          clients: { sqs: aws.sqs, s3: aws.s3 },
          settings: { schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 200, jitter: 0 }, grace: { ms: 100, reads: 2 } },
        },
      ).finally(() => clearInterval(watcher));

      // Assess
      expect(code).toBe(0);
      const lines = out.trimEnd().split('\n');
      expect(lines.some((line) => line.startsWith('{'))).toBe(false);
      expect(lines).toContainEqual(
        expect.stringMatching(/^\d\d:\d\d:\d\d project proj_small, job job_demo_2, request req-human: prompt sent \(kind follow_up, responseStatus \w+\)$/),
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^\d\d:\d\d:\d\d project proj_small, job job_demo_2, request req-human: follow-up finished \(kind follow_up, status completed, polls \d+, attempts 1\)$/,
        ),
      );
      // The message's own line: its status and the pull request to review.
      expect(lines).toContainEqual(
        expect.stringMatching(/^\d\d:\d\d:\d\d project proj_small, job job_demo_2, request req-human: completed https:\/\/github\.com\/\S+\/pull\/\d+$/),
      );
      expect(out).not.toContain(body.prompt);
    } finally {
      await Promise.all([sandbox.close(), aws.close()]);
    }
  }, 30_000);
});
