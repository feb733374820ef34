/**
 * Whether a CLI run goes to the embedded sandbox (functions/cli/api-target.ts
 * `runsAgainstSandbox`): the one predicate that plan, status, report and export ask, from the
 * configuration and the projects, before any sandbox is started.
 */
import { describe, expect, it } from 'vitest';
import { runsAgainstSandbox } from '../../../functions/cli/api-target.js';
import { loadConfig } from '../../../functions/settings/config.js';

describe('runs against the sandbox', () => {
  it('without a key, a budget or a deployment, for the projects the sandbox serves (none named: its own)', () => {
    const config = loadConfig({});

    expect(runsAgainstSandbox(config, [])).toBe(true);
    expect(runsAgainstSandbox(config, ['proj_small', 'proj_synth_3'])).toBe(true);
    expect(runsAgainstSandbox(config, ['proj_small', 'proj_real'])).toBe(false);
  });

  it('not with a key, its secret, ANALYTICS_BUDGET, a state table or another API URL', () => {
    for (const env of [
      { MINTLIFY_API_KEY: 'mint_0123456789abcdef0123456789abcdef' },
      { MINTLIFY_API_KEY_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mintlify-key-AbCdEf' },
      { ANALYTICS_BUDGET: '100/h' },
      { EXPORT_STATE_TABLE: 'export-state' },
      { MINTLIFY_API_URL: 'http://127.0.0.1:9/api' },
    ]) {
      expect(runsAgainstSandbox(loadConfig(env), ['proj_small']), JSON.stringify(env)).toBe(false);
    }
  });
});
