/** @module `support-chat-kit integrations set|show|remove`: an organization's helpdesk settings. */
import { IntegrationSettingsStore } from '../../server/escalation/index.js';
import { effectiveSettings, settingsOf } from '../../server/escalation/settings.js';
import { printableSetting, SETTING_FLAGS } from '../../server/helpdesks/settings.js';
import type { IntegrationSettings, SettingKey } from '../../server/helpdesks/types.js';
import { helpdesks } from '../../server/helpdesks/index.js';
import { CliError, dispatch, ORG_OPTION, parse } from '../args.js';
import { openDatabase } from '../database.js';

const FLAG_KEYS = Object.fromEntries(Object.entries(SETTING_FLAGS).map(([key, flag]) => [flag.slice(2), key as SettingKey])) as Record<string, SettingKey>;

/** The registered helpdesk's name, else a CLI error listing the registered ones. */
function integrationOf(value: string | undefined): string {
  if (!value || !helpdesks.get(value)) throw new CliError(`name the integration: one of ${helpdesks.all().map((h) => h.name).join(', ')}`);
  return value;
}

/** Secrets show only their last four characters, a webhook URL only its origin (see printableSetting). */
function masked(settings: IntegrationSettings): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings) as [SettingKey, string][]) {
    out[SETTING_FLAGS[key].slice(2)] = printableSetting(key, value);
  }
  return out;
}

export async function run(argv: string[]): Promise<number> {
  return dispatch(argv, { set, show, remove });
}

async function set(argv: string[]): Promise<number> {
  const options = Object.fromEntries(Object.keys(FLAG_KEYS).map((flag) => [flag, { type: 'string' as const }]));
  const { values, positionals } = parse(argv, { org: ORG_OPTION, ...options }, helpdesks.all().map((h) => h.name).join('|'));
  const integration = integrationOf(positionals[0]);
  const orgId = values.org!;
  const patch: IntegrationSettings = {};
  for (const [flag, key] of Object.entries(FLAG_KEYS)) {
    const value = (values as Record<string, string | undefined>)[flag];
    if (value === undefined) continue;
    if (!(key in settingsOf(integration))) {
      const accepted = Object.keys(settingsOf(integration)).map((k) => SETTING_FLAGS[k as SettingKey]);
      throw new CliError(`${integration} has no setting --${flag}; it takes ${accepted.join(', ')}`);
    }
    if ((key === 'apiUrl' || key === 'url') && value !== '' && !/^https?:\/\/\S+$/.test(value)) throw new CliError(`--${flag} must be an http(s) URL, got "${value}"`);
    patch[key] = value;
  }
  if (Object.keys(patch).length === 0) throw new CliError(`nothing to set; ${integration} takes ${Object.keys(settingsOf(integration)).map((k) => SETTING_FLAGS[k as SettingKey]).join(', ')}`);
  const sql = await openDatabase(values);
  try {
    const next = await new IntegrationSettingsStore(sql).set(orgId, integration, patch);
    console.log(`${integration} settings for ${orgId}: ${JSON.stringify(masked(next))}`);
    return 0;
  } finally {
    await sql.close();
  }
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { org: ORG_OPTION, json: { type: 'boolean', description: 'print JSON' } }, '[INTEGRATION]');
  const orgId = values.org!;
  const only = positionals[0] ? [integrationOf(positionals[0])] : helpdesks.all().map((h) => h.name);
  const sql = await openDatabase(values);
  try {
    const store = new IntegrationSettingsStore(sql);
    const rows = [];
    for (const integration of only) {
      const own = await store.stored(orgId, integration);
      const effective = effectiveSettings(own, process.env, integration);
      const from = Object.fromEntries(Object.keys(effective).map((k) => [SETTING_FLAGS[k as SettingKey].slice(2), k in own ? 'organization' : 'environment']));
      rows.push({ integration, settings: masked(effective), from });
    }
    if (values.json) console.log(JSON.stringify(rows));
    else for (const r of rows) console.log(`${r.integration}: ${Object.keys(r.settings).length === 0 ? 'not configured' : Object.entries(r.settings).map(([k, v]) => `${k}=${v} (${r.from[k]})`).join(', ')}`);
    return 0;
  } finally {
    await sql.close();
  }
}

async function remove(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { org: ORG_OPTION }, 'INTEGRATION');
  const integration = integrationOf(positionals[0]);
  const orgId = values.org!;
  const sql = await openDatabase(values);
  try {
    const removed = await new IntegrationSettingsStore(sql).remove(orgId, integration);
    console.log(removed ? `Removed the ${integration} settings of ${orgId}.` : `${orgId} had no ${integration} settings of its own.`);
    return 0;
  } finally {
    await sql.close();
  }
}
