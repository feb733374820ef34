/**
 * Alerts where teams talk: the insights topic (weekly digest, anomalies, stale datasets)
 * subscribed by AWS's chat integration (`aws-cdk-lib/aws-chatbot`) to a Slack channel (context
 * `chatSlackWorkspaceId` + `chatSlackChannelId`) and/or a Microsoft Teams channel
 * (`chatTeamsTeamId` + `chatTeamsChannelId` + `chatTeamsTenantId`).
 *
 * A channel can only read: its role holds CloudWatch's read-only managed policy (what the chat
 * integration needs to show an alarm's graph), and the guardrail — the ceiling on anything a
 * channel member could run — is `ReadOnlyAccess`, so no command typed in the channel can change
 * the account. No channel member needs a role of their own (`userRoleRequired: false`): a
 * channel receives the topic, it is not an operations console. The workspace (or team) must
 * first be authorised once in the AWS Chatbot console: docs/deploy.md.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import * as chatbot from 'aws-cdk-lib/aws-chatbot';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/** The AWS managed policy every channel's guardrail is: reading only. */
export const CHAT_GUARDRAIL_POLICY = 'ReadOnlyAccess';
/** The AWS managed policy of the channels' role: CloudWatch read-only (alarm graphs), nothing else. */
export const CHAT_CHANNEL_ROLE_POLICY = 'CloudWatchReadOnlyAccess';

export interface SlackChannel {
  /** The Slack workspace id (authorised once in the AWS Chatbot console). */
  readonly workspaceId: string;
  readonly channelId: string;
}

export interface TeamsChannel {
  readonly teamId: string;
  readonly channelId: string;
  readonly tenantId: string;
}

/** Props of {@link ChatAlerts}. */
export interface ChatAlertsProps {
  /** The topic the channels receive (the insights topic). */
  readonly topic: sns.ITopic;
  /** @default - no Slack channel */
  readonly slack?: SlackChannel | undefined;
  /** @default - no Teams channel */
  readonly teams?: TeamsChannel | undefined;
}

export class ChatAlerts extends Construct {
  /** The role every channel configuration uses: read-only. */
  readonly role: iam.Role;
  readonly guardrail: iam.IManagedPolicy;
  readonly slack: chatbot.SlackChannelConfiguration | undefined;
  readonly teams: chatbot.CfnMicrosoftTeamsChannelConfiguration | undefined;

  constructor(scope: Construct, id: string, props: ChatAlertsProps) {
    super(scope, id);
    this.guardrail = iam.ManagedPolicy.fromAwsManagedPolicyName(CHAT_GUARDRAIL_POLICY);
    this.role = new iam.Role(this, 'ChannelRole', {
      assumedBy: new iam.ServicePrincipal('chatbot.amazonaws.com'),
      description: 'mintlify-exporter chat channels: read CloudWatch alarms and graphs, nothing else',
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName(CHAT_CHANNEL_ROLE_POLICY)],
    });
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${CHAT_CHANNEL_ROLE_POLICY}]`,
      reason: `${CHAT_CHANNEL_ROLE_POLICY} is AWS's read-only policy for the chat integration's alarm graphs; the guardrail ${CHAT_GUARDRAIL_POLICY} caps it`,
    });
    const name = (kind: string) => `${Stack.of(this).stackName}-${kind}`.slice(0, 128);
    this.slack =
      props.slack === undefined
        ? undefined
        : new chatbot.SlackChannelConfiguration(this, 'Slack', {
            slackChannelConfigurationName: name('insights-slack'),
            slackWorkspaceId: props.slack.workspaceId,
            slackChannelId: props.slack.channelId,
            notificationTopics: [props.topic],
            role: this.role,
            guardrailPolicies: [this.guardrail],
            userRoleRequired: false,
          });
    this.teams =
      props.teams === undefined
        ? undefined
        : new chatbot.CfnMicrosoftTeamsChannelConfiguration(this, 'Teams', {
            configurationName: name('insights-teams'),
            teamId: props.teams.teamId,
            teamsChannelId: props.teams.channelId,
            teamsTenantId: props.teams.tenantId,
            iamRoleArn: this.role.roleArn,
            snsTopicArns: [props.topic.topicArn],
            guardrailPolicies: [this.guardrail.managedPolicyArn],
            userRoleRequired: false,
          });
  }
}
