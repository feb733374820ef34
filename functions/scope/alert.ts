/**
 * The alert of a pull request out of scope, on the insights topic (`kind` `scope`, with the
 * project): what the agent changed that it may not, so someone looks before it is merged.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { ScopeReason } from './rules.js';

/** A message of the insights topic (the shape of insights/publish.ts's, which this layer may not import). */
export interface ScopeAlert {
  readonly kind: 'scope';
  readonly projectId: string;
  readonly subject: string;
  readonly body: string;
}

/** Publishes alerts on the insights topic with its attributes (`kind`, `projectId`), as the insights functions publish theirs. */
export function createScopeAlertPublisher(options: { readonly sns: Pick<SNSClient, 'send'>; readonly topicArn: string }) {
  return async (alert: ScopeAlert): Promise<void> => {
    // SNS: a subject is printable ASCII on one line, under 100 characters.
    const subject = alert.subject.replace(/[^\x20-\x7e]/g, '').slice(0, 99);
    await options.sns.send(
      new PublishCommand({
        TopicArn: options.topicArn,
        Subject: subject,
        Message: alert.body,
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: alert.kind },
          projectId: { DataType: 'String', StringValue: alert.projectId },
        },
      }),
    );
  };
}

export interface ScopeAlertInput {
  readonly projectId: string;
  readonly jobId?: string | null | undefined;
  readonly gapId?: string | null | undefined;
  readonly prLink: string;
  readonly reasons: readonly ScopeReason[];
}

/** What each rule means, for people. */
const RULE_TEXT: Readonly<Record<string, string>> = {
  repository: 'in a repository other than DOCS_REPOSITORY',
  protected: 'changes protected files (SCOPE_PROTECTED)',
  not_allowed: 'changes files outside SCOPE_ALLOWED',
  max_files: 'changes more files than SCOPE_MAX_FILES',
  max_lines: 'changes more lines than SCOPE_MAX_LINES',
};

export function scopeAlertOf(input: ScopeAlertInput): ScopeAlert {
  const lines = input.reasons.map((reason) => `- ${RULE_TEXT[reason.rule] ?? reason.rule}: ${reason.files.join(', ')}`);
  return {
    kind: 'scope',
    projectId: input.projectId,
    subject: `mintlify-exporter: the agent's pull request is out of scope (${input.projectId})`,
    body: [
      `The agent's pull request ${input.prLink} is out of scope; review it before it is merged.`,
      `Project ${input.projectId}, job ${input.jobId ?? '(unknown)'}${input.gapId ? `, gap ${input.gapId}` : ''}.`,
      '',
      ...lines,
      '',
      'Its fix gets no verdict ("out of scope: not measured"). The rules: docs/follow-ups.md, "The agent\'s changes stay in scope".',
    ].join('\n'),
  };
}
