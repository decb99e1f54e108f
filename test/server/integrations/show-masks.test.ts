/** `integrations set/show` never print a webhook's capability URL or a secret: the URL shows its origin only. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printableSetting } from '../../../src/server/helpdesks/settings.js';
import { runCli } from '../../helpers/cli.js';

const HOOK = 'https://hooks.slack.com/services/T0SECRET/B0SECRET/xoxCAPABILITY?token=QUERYSECRET';
const ENV_HOOK = 'https://hooks.zapier.com/hooks/catch/123/ENVSECRET/';

describe('printableSetting', () => {
  it.each([
    ['url', HOOK, 'https://hooks.slack.com/…CRET'],
    ['url', 'https://n8n.example.com/', 'https://n8n.example.com'],
    ['url', 'not a url at all', '… all'],
    ['secret', 'whsec_abcdefgh', '…efgh'],
    ['apiKey', 'plainApiKey_1234', '…1234'],
    ['apiUrl', 'https://core-api.uk.plain.com/graphql/v1', 'https://core-api.uk.plain.com/graphql/v1'],
  ] as const)('%s %s prints as %s', (key, value, printed) => {
    expect(printableSetting(key, value)).toBe(printed);
  });
});

describe('support-chat integrations show', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-show-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('masks the webhook URL, from the organization or the environment', () => {
    const env = { ...process.env, SUPPORT_CHAT_WEBHOOK_URL: ENV_HOOK, SUPPORT_CHAT_WEBHOOK_SECRET: 'env-secret-value' };
    const set = runCli(['integrations', 'set', 'webhook', '--org', 'acme', '--url', HOOK, '--secret', 'whsec_org_secret'], dataDir, env);
    const shownJson = runCli(['integrations', 'show', 'webhook', '--org', 'acme', '--json'], dataDir, env);
    const shownText = runCli(['integrations', 'show', '--org', 'acme'], dataDir, env);
    const fromEnv = runCli(['integrations', 'show', 'webhook', '--org', 'globex', '--json'], dataDir, env);
    for (const out of [set, shownJson, shownText, fromEnv]) {
      for (const secret of ['SECRET', 'CAPABILITY', 'services', 'hooks/catch', 'whsec_org', 'env-secret']) expect(out).not.toContain(secret);
    }
    expect(JSON.parse(shownJson)).toEqual([{ integration: 'webhook', settings: { url: 'https://hooks.slack.com/…CRET', secret: '…cret' }, from: { url: 'organization', secret: 'organization' } }]);
    expect(JSON.parse(fromEnv)[0].settings.url).toBe('https://hooks.zapier.com/…RET/');
  });
});
