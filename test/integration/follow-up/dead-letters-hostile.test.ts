/**
 * `dead-letters list` over messages a writer to the queue made hostile (ids and reason with
 * terminal escapes, bidi and zero-width characters, line breaks): one line per message, no
 * escape byte, nothing hidden.
 */
import { randomBytes } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEAD_LETTER_ATTRIBUTES } from '../../../functions/follow-up/dead-letter.js';
import { runSpawnedCli } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { HIDDEN_OR_CONTROL } from '../../helpers/hostile-text.js';

let aws: S3Sqs;
let scratch: string;

beforeAll(async () => {
  aws = await startS3Sqs();
  scratch = await makeTempDir('dead-letters-hostile');
});

afterAll(async () => {
  await aws?.close();
  await removeTempDirs();
});

const HOSTILE_ID = 'req\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202Eevil\u200B\nforged line';

describe('dead-letters list with hostile messages', { timeout: 60_000 }, () => {
  it('prints no ESC byte, no control, bidi or zero-width character, and one line per message', async () => {
    const tag = randomBytes(4).toString('hex');
    const deadLetterUrl = await aws.createQueue(`hostile-${tag}-dlq.fifo`, { FifoQueue: 'true' });
    const redrive = JSON.stringify({ deadLetterTargetArn: `arn:aws:sqs:us-east-1:000000000000:hostile-${tag}-dlq.fifo`, maxReceiveCount: 5 });
    const queueUrl = await aws.createQueue(`hostile-${tag}.fifo`, { FifoQueue: 'true', RedrivePolicy: redrive });
    const body = JSON.stringify({ projectId: `proj\u001b[31m_x`, jobId: `job\u0085\u202Ea`, prompt: 'p', requestId: HOSTILE_ID });
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: deadLetterUrl,
        MessageGroupId: 'g',
        MessageDeduplicationId: 'd',
        MessageBody: body,
        MessageAttributes: {
          [DEAD_LETTER_ATTRIBUTES.reason]: { DataType: 'String', StringValue: `rejected\u001b[2J\u009d8;;https://evil.example\u009c\nline two` },
        },
      }),
    );
    const env = { ...hostEnv(), ...emulatorAwsEnv(aws.endpoint, scratch) };

    const { code, stdout, stderr } = await runSpawnedCli(['dead-letters', 'list', '--queue-url', queueUrl], env);

    expect(code, stderr).toBe(0);
    expect(stdout).not.toContain('\u001b');
    expect(stdout).not.toMatch(HIDDEN_OR_CONTROL);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(stdout).toContain('request req]0;pwned[2J31mevil forged line');
  });
});
