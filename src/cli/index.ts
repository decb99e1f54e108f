/** @module The `support-chat` command: serve, token, kb, tickets, integrations, insights, retention. */
import { CliError } from './args.js';

const COMMANDS: Record<string, () => Promise<{ run(argv: string[]): Promise<number> }>> = {
  serve: () => import('./commands/serve.js'),
  token: () => import('./commands/token.js'),
  kb: () => import('./commands/kb.js'),
  tickets: () => import('./commands/tickets.js'),
  integrations: () => import('./commands/integrations.js'),
  insights: () => import('./commands/insights.js'),
  retention: () => import('./commands/retention.js'),
};

const USAGE = `Usage: support-chat <command> [options]

Commands:
  serve [--port 8787] [--host 127.0.0.1] [--role api|worker|all] [--retention-days 90] [--kb-sync-every 6h] [--data DIR]
  token create --org ORG --name NAME --scopes chat:read,chat:write [--expires-in DAYS] [--data DIR] [--json]
  token list [--org ORG] [--data DIR] [--json]
  token revoke PREFIX_OR_ID [--data DIR]
  kb ingest PATH|URL... --org ORG [--base-url URL] [--include PATTERN]... [--exclude PATTERN]...
      [--max-pages 1000] [--content-selector CSS] [--exclude-selector CSS]... [--data DIR]
  kb sources --org ORG [--data DIR]
  kb sync --org ORG [--data DIR]
  tickets list --org ORG [--source SOURCE] [--json] [--data DIR]
  tickets sync --source plain|pylon|linear --org ORG [--full] [--json] [--data DIR]
  integrations set plain|pylon|linear|webhook --org ORG [--api-key KEY] [--api-url URL]
      [--workspace-id ID] [--team-id ID] [--webhook-secret SECRET] [--url URL] [--secret SECRET]
  integrations show [INTEGRATION] --org ORG [--json]
  integrations remove INTEGRATION --org ORG
  insights --org ORG [--since 7d|ISO-8601] [--until ISO-8601] [--json]
  retention set --org ORG --days N
  retention show|clear --org ORG [--json]
  retention sweep [--retention-days 90] [--json]

Each integration setting comes from the organization's own settings, else from the
environment (PLAIN_API_KEY, LINEAR_TEAM_ID, SUPPORT_CHAT_WEBHOOK_URL, …).

Data lives in --data DIR (default: $SUPPORT_CHAT_DATA or ./.support-chat), or in the
PostgreSQL database of --database URL (default: $SUPPORT_CHAT_DATABASE_URL), for example
postgres://user:password@host:5432/database.

serve --role api answers HTTP requests only, --role worker runs the background work only
(answers, follow-ups, retention), --role all (the default) does both.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`support-chat: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    const command = await load();
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`support-chat ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  },
);
