import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FOLLOW_UP_DEFAULTS } from '../../../functions/follow-up/settings.js';
import { CONFIG_DEFAULTS, loadConfig, loadConfigFor, requireSettings } from '../../../functions/settings/config.js';
import { validateApiKey, validateApiUrl } from '../../../functions/shared/validators.js';
import type { SettingReader } from '../../../functions/settings/setting.js';
import { SETTINGS } from '../../../functions/settings/table.js';
import { createLogger } from '../../../functions/shared/logger.js';
import { configErrorOf } from '../../helpers/errors.js';

const KEY = 'mint_Zq8xSecretTestKey1234567890';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mintlify-admin-key-AbCdEf';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      apiUrl: 'https://api.mintlify.com',
      projectIds: [],
      destination: './data',
      healDays: 7,
      maxPages: 10_000,
      apiTimeoutMs: 30_000,
      followUpMaxWaitHours: 24,
      budget: { requests: 90, windowMs: 3_600_000, text: '90/1h' },
      settleHours: 2,
      datasets: ['visitors', 'views', 'searches', 'feedback', 'feedback_by_page', 'assistant', 'caller_stats'],
      personalDataPolicy: {},
      refreshDays: 7,
      checkpointMaxAgeHours: 24,
    });
    // Unset: every dataset asks for its endpoint's largest page.
    expect(config.pageLimit).toBeUndefined();
    expect(config.stateTable).toBeUndefined();
    expect(config.apiKey).toBeUndefined();
    expect(config.followUpStateTable).toBeUndefined();
  });

  it('takes every default from CONFIG_DEFAULTS, the one list the infra and the follow-up settings also read', () => {
    const config = loadConfig({});
    expect(config).toMatchObject(CONFIG_DEFAULTS);
    expect(config.budget.text).toBe('90/1h');
    // The follow-up settings' own default is the same value (functions/follow-up/settings.ts).
    expect(FOLLOW_UP_DEFAULTS.maxDeferMs).toBe(config.followUpMaxDeferMinutes * 60_000);
  });

  it('reads every variable it knows', () => {
    const config = loadConfig({
      MINTLIFY_API_KEY: KEY,
      MINTLIFY_API_KEY_SECRET_ARN: ARN,
      MINTLIFY_API_URL: 'http://127.0.0.1:4010/',
      MINTLIFY_PROJECT_IDS: 'proj_a, proj-b',
      EXPORT_DESTINATION: 's3://warehouse-bucket/mintlify',
      EXPORT_PAGE_LIMIT: '100',
      EXPORT_HEAL_DAYS: '0',
      EXPORT_MAX_PAGES: '50',
      API_TIMEOUT_MS: '5000',
      FOLLOWUP_STATE_TABLE: 'followup-state',
      FOLLOWUP_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/followups-dlq',
      FOLLOWUP_MAX_WAIT_HOURS: '0.5',
      ANALYTICS_BUDGET: '10/30m',
      EXPORT_SETTLE_HOURS: '0',
      EXPORT_DATASETS: 'views, searches,views',
      PERSONAL_DATA_POLICY: 'feedback.contact=drop, assistant.response=keep',
      PERSONAL_DATA_KEY: 'a-key-of-at-least-16-characters',
      PERSONAL_DATA_RETENTION_DAYS: '400',
      EXPORT_REFRESH_DAYS: '3',
      EXPORT_CHECKPOINT_MAX_AGE_HOURS: '6',
      EXPORT_STATE_TABLE: 'exporter-state',
      EXPORT_STATE_DIR: '/var/tmp/state',
    });
    expect(config).toMatchObject({
      apiKey: KEY,
      apiKeySecretArn: ARN,
      apiUrl: 'http://127.0.0.1:4010',
      projectIds: ['proj_a', 'proj-b'],
      destination: 's3://warehouse-bucket/mintlify',
      pageLimit: 100,
      healDays: 0,
      maxPages: 50,
      apiTimeoutMs: 5000,
      followUpStateTable: 'followup-state',
      followUpDeadLetterQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/followups-dlq',
      followUpMaxWaitHours: 0.5,
      budget: { requests: 10, windowMs: 1_800_000, text: '10/30m' },
      settleHours: 0,
      datasets: ['views', 'searches'],
      personalDataPolicy: { 'feedback.contact': 'drop', 'assistant_conversations.response': 'keep' },
      personalDataKey: 'a-key-of-at-least-16-characters',
      personalDataRetentionDays: 400,
      refreshDays: 3,
      checkpointMaxAgeHours: 6,
      stateTable: 'exporter-state',
      stateDir: '/var/tmp/state',
    });
  });

  it('says whether ANALYTICS_BUDGET was set, a blank value counting as unset', () => {
    expect(loadConfig({}).budgetSet).toBe(false);
    expect(loadConfig({ ANALYTICS_BUDGET: ' ' }).budgetSet).toBe(false);
    expect(loadConfig({ ANALYTICS_BUDGET: '90/1h' }).budgetSet).toBe(true);
  });

  it('notes an SQS endpoint set for the AWS SDK, so queue URLs do not override it', () => {
    expect(loadConfig({}).sqsEndpointOverridden).toBe(false);
    expect(loadConfig({ AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:4566' }).sqsEndpointOverridden).toBe(true);
    expect(loadConfig({ AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' }).sqsEndpointOverridden).toBe(true);
  });

  it('reads the outcomes topic and refuses what is not an SNS topic ARN, naming the variable', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:MintlifyExporter-FollowUpOutcomes';
    expect(loadConfig({ FOLLOWUP_OUTCOMES_TOPIC_ARN: arn }).followUpOutcomesTopicArn).toBe(arn);
    expect(loadConfig({}).followUpOutcomesTopicArn).toBeUndefined();
    expect(configErrorOf(() => loadConfig({ FOLLOWUP_OUTCOMES_TOPIC_ARN: 'arn:aws:sqs:eu-west-1:123456789012:q' })).message).toMatch(
      /^FOLLOWUP_OUTCOMES_TOPIC_ARN is not an SNS topic ARN: .*FollowUpOutcomesTopicArn/,
    );
  });

  it('treats a blank variable as unset', () => {
    expect(loadConfig({ MINTLIFY_API_KEY: '', EXPORT_PAGE_LIMIT: '  ' })).toMatchObject({ healDays: 7 });
    expect(loadConfig({ EXPORT_PAGE_LIMIT: '  ' }).pageLimit).toBeUndefined();
    expect(loadConfig({ MINTLIFY_API_KEY: '' }).apiKey).toBeUndefined();
  });

  it('trims project ids, drops empty entries and removes duplicates', () => {
    expect(loadConfig({ MINTLIFY_PROJECT_IDS: ' a1 ,b2,, a1,' }).projectIds).toEqual(['a1', 'b2']);
  });

  it('refuses a project id with characters a path cannot carry', () => {
    const error = configErrorOf(() => loadConfig({ MINTLIFY_PROJECT_IDS: 'ok,bad/id' }));
    expect(error.message).toContain('MINTLIFY_PROJECT_IDS');
    expect(error.message).toContain('bad/id');
  });

  it.each([
    ['EXPORT_PAGE_LIMIT', '0'],
    ['EXPORT_PAGE_LIMIT', '1001'],
    ['ANALYTICS_BUDGET', '90'],
    ['ANALYTICS_BUDGET', '0/1h'],
    ['ANALYTICS_BUDGET', '90/1w'],
    ['EXPORT_SETTLE_HOURS', '73'],
    ['EXPORT_DATASETS', 'visitors,pageviews'],
    ['EXPORT_DATASETS', ' , '],
    ['EXPORT_FEEDBACK_CONTACT', 'true'],
    ['EXPORT_FEEDBACK_CONTACT', 'false'],
    ['PERSONAL_DATA_POLICY', 'feedback.path=hmac'],
    ['PERSONAL_DATA_KEY', 'short'],
    ['PERSONAL_DATA_KEY_SECRET_ARN', 'my-secret'],
    ['PERSONAL_DATA_RETENTION_DAYS', '0'],
    ['EXPORT_REFRESH_DAYS', '32'],
    ['EXPORT_CHECKPOINT_MAX_AGE_HOURS', '0'],
    ['EXPORT_STATE_TABLE', 'a'],
    ['EXPORT_PAGE_LIMIT', '25x'],
    ['EXPORT_HEAL_DAYS', '32'],
    ['EXPORT_MAX_PAGES', '-1'],
    ['API_TIMEOUT_MS', '1e4'],
    ['FOLLOWUP_MAX_WAIT_HOURS', '0'],
    ['FOLLOWUP_MAX_WAIT_HOURS', 'forever'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    const error = configErrorOf(() => loadConfig({ [name]: value }));
    expect(error.message).toContain(name);
    expect(error.message).not.toContain('\n');
  });

  it('refuses a malformed secret ARN, queue URL, table name and s3 destination', () => {
    expect(configErrorOf(() => loadConfig({ MINTLIFY_API_KEY_SECRET_ARN: 'my-secret' })).message).toContain('MINTLIFY_API_KEY_SECRET_ARN');
    expect(configErrorOf(() => loadConfig({ FOLLOWUP_DEAD_LETTER_QUEUE_URL: 'queue' })).message).toContain('FOLLOWUP_DEAD_LETTER_QUEUE_URL');
    expect(configErrorOf(() => loadConfig({ FOLLOWUP_STATE_TABLE: 'a b' })).message).toContain('FOLLOWUP_STATE_TABLE');
    expect(configErrorOf(() => loadConfig({ EXPORT_DESTINATION: 's3://' })).message).toContain('EXPORT_DESTINATION');
  });

  it('names the replacement of the retired EXPORT_FEEDBACK_CONTACT', () => {
    expect(configErrorOf(() => loadConfig({ EXPORT_FEEDBACK_CONTACT: 'true' })).message).toMatch(/retired: .*PERSONAL_DATA_POLICY=feedback\.contact=keep/);
  });

  it('never shows the personal-data key when the config is logged', () => {
    const config = loadConfig({ PERSONAL_DATA_KEY: 'a-key-of-at-least-16-characters' });
    expect(JSON.stringify(config)).not.toContain('a-key-of-at-least-16-characters');
    expect(inspect(config)).not.toContain('a-key-of-at-least-16-characters');
  });

  it('refuses an assistant key without echoing it', () => {
    const assistantKey = 'mint_dsc_Zq8xSecretAssistant99';
    const error = configErrorOf(() => loadConfig({ MINTLIFY_API_KEY: assistantKey }));
    expect(error.message).toContain('MINTLIFY_API_KEY');
    expect(error.message).not.toContain(assistantKey);
  });

  it('returns a frozen config', () => {
    const config = loadConfig({ MINTLIFY_PROJECT_IDS: 'a' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.projectIds)).toBe(true);
  });

  it('hides the key when the config is logged as JSON or inspected', () => {
    const config = loadConfig({ MINTLIFY_API_KEY: KEY });
    expect(JSON.stringify(config)).not.toContain(KEY);
    expect(inspect(config)).not.toContain(KEY);
    expect(JSON.stringify(config)).toContain('[redacted]');
  });

  it('keeps the key in a spread copy', () => {
    const config = loadConfig({ MINTLIFY_API_KEY: KEY });
    expect({ ...config }.apiKey).toBe(KEY);
  });
});

describe('validateApiKey', () => {
  it('accepts an admin key and trims surrounding whitespace', () => {
    expect(validateApiKey(`  ${KEY}\n`)).toBe(KEY);
  });

  it('refuses an assistant key and points to the dashboard', () => {
    const error = configErrorOf(() => validateApiKey('mint_dsc_abcdef123456'));
    expect(error.message).toContain('assistant key');
    expect(error.message).toContain('create an admin key');
    expect(error.message).toContain('API keys page');
    expect(error.message).not.toContain('abcdef123456');
  });

  it('refuses a key without the mint_ prefix without echoing it', () => {
    const error = configErrorOf(() => validateApiKey('sk_live_Zq8xNotMintlify'));
    expect(error.message).toContain('MINTLIFY_API_KEY must be an admin API key starting with mint_');
    expect(error.message).not.toContain('Zq8xNotMintlify');
  });

  it('refuses an empty key', () => {
    expect(configErrorOf(() => validateApiKey('   ')).message).toContain('empty');
  });

  it('refuses a key with inner whitespace, which cannot go into a header', () => {
    const error = configErrorOf(() => validateApiKey('mint_abc def'));
    expect(error.message).not.toContain('abc def');
  });

  it('names the source it was given', () => {
    expect(configErrorOf(() => validateApiKey('nope', 'the secret X')).message).toContain('the secret X');
  });
});

describe('validateApiUrl', () => {
  it('accepts https and removes trailing slashes', () => {
    expect(validateApiUrl('https://api.mintlify.com///')).toBe('https://api.mintlify.com');
  });

  it('keeps a base path', () => {
    expect(validateApiUrl('https://proxy.example.com/mintlify/')).toBe('https://proxy.example.com/mintlify');
  });

  it.each(['http://127.0.0.1:4010', 'http://127.8.9.10', 'http://localhost:3000', 'http://[::1]:8080'])('allows plain http on loopback (%s)', (url) => {
    expect(validateApiUrl(url)).toBe(url);
  });

  it.each(['http://api.mintlify.com', 'http://10.0.0.5:4010', 'http://128.0.0.1', 'http://127.0.0.1.evil.com'])(
    'refuses plain http off loopback (%s)',
    (url) => {
      expect(configErrorOf(() => validateApiUrl(url)).message).toContain('https');
    },
  );

  it.each(['http://api.localhost:4010', 'http://sqs.us-east-1.localhost', 'http://localhost.:3000'])(
    'refuses plain http to a name that only claims to be loopback (%s): its address is not checked',
    (url) => {
      expect(configErrorOf(() => validateApiUrl(url)).message).toContain('https');
    },
  );

  it('reads numeric loopback forms as the address they are (http://127.1 is 127.0.0.1)', () => {
    expect(validateApiUrl('http://127.1:4010')).toBe('http://127.0.0.1:4010');
  });

  it('refuses other schemes, credentials, queries and non-URLs', () => {
    expect(configErrorOf(() => validateApiUrl('ftp://api.mintlify.com')).message).toContain('MINTLIFY_API_URL');
    expect(configErrorOf(() => validateApiUrl('https://u:p@api.mintlify.com')).message).toContain('credentials');
    expect(configErrorOf(() => validateApiUrl('https://api.mintlify.com/?x=1')).message).toContain('query');
    expect(configErrorOf(() => validateApiUrl('api.mintlify.com')).message).toContain('not a URL');
  });
});

describe('logger', () => {
  it('creates a Powertools logger that writes JSON lines with the service name', () => {
    const lines: string[] = [];
    const logger = createLogger({ serviceName: 'test-service', persistentKeys: { component: 'unit' } });
    const original = process.stdout.write.bind(process.stdout);
    // Powertools writes through console (stdout); capture it for this one call.
    const spy = (chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    };
    (process.stdout as { write: unknown }).write = spy;
    try {
      logger.info('hello', { rows: 3 });
    } finally {
      (process.stdout as { write: unknown }).write = original;
    }
    const record = JSON.parse(lines.join('').trim()) as Record<string, unknown>;
    expect(record).toMatchObject({ message: 'hello', service: 'test-service', component: 'unit', rows: 3, level: 'INFO' });
  });
});

describe('requireSettings (the settings a Lambda refuses to start without: the `requiredIn` column)', () => {
  const requiredBy = (reader: SettingReader) =>
    Object.values(SETTINGS as Record<string, { readonly env: string; readonly requiredIn?: Partial<Record<SettingReader, string>> }>)
      .filter((s) => s.requiredIn?.[reader] !== undefined)
      .map((s) => s.env);

  it('marks the state tables, the dead-letter queue and the topic required in the Lambdas that need them, and nothing in the CLI', () => {
    expect(requiredBy('export')).toEqual(['EXPORT_STATE_TABLE']);
    expect(requiredBy('follow-up')).toEqual(['FOLLOWUP_STATE_TABLE', 'FOLLOWUP_DEAD_LETTER_QUEUE_URL']);
    expect(requiredBy('insights')).toEqual(['EXPORT_STATE_TABLE', 'INSIGHTS_TOPIC_ARN']);
    expect(requiredBy('weekly-report')).toEqual(['INSIGHTS_TOPIC_ARN']);
    expect(requiredBy('cli')).toEqual([]);
  });

  it("a missing required setting stops that function's check with one line naming it and why; another function is not stopped", () => {
    const error = configErrorOf(() => requireSettings(loadConfigFor({}, 'export'), 'export'));
    expect(error.message).toBe('EXPORT_STATE_TABLE is not set: the export Lambda keeps its budget ledger and leases in that DynamoDB table');
    expect(configErrorOf(() => requireSettings(loadConfigFor({}, 'insights'), 'insights')).message).toBe(
      'EXPORT_STATE_TABLE is not set: the insights check records what it told in that DynamoDB table',
    );
    expect(configErrorOf(() => requireSettings(loadConfigFor({ FOLLOWUP_STATE_TABLE: 'followups' }, 'follow-up'), 'follow-up')).message).toBe(
      'FOLLOWUP_DEAD_LETTER_QUEUE_URL is not set: the follow-up Lambda needs its dead-letter queue',
    );
    // Blank counts as unset; the CLI requires none of them.
    expect(() => requireSettings(loadConfigFor({ EXPORT_STATE_TABLE: '  ' }, 'export'), 'export')).toThrow(/^EXPORT_STATE_TABLE is not set/);
    expect(() => requireSettings(loadConfig({}), 'cli')).not.toThrow();
  });

  it('returns the config with the required settings present, and checks only the fields asked for', () => {
    const config = requireSettings(loadConfigFor({ EXPORT_STATE_TABLE: 'ledger' }, 'export'), 'export');
    const table: string = config.stateTable;
    expect(table).toBe('ledger');
    expect(requireSettings(loadConfigFor({ FOLLOWUP_STATE_TABLE: 'followups' }, 'follow-up'), 'follow-up', ['followUpStateTable']).followUpStateTable).toBe(
      'followups',
    );
  });
});
