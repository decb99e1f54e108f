/** @module The `support-chat-kit` command: init, serve, token, kb, tickets, integrations, insights, retention, mcp. */
import { existsSync } from 'node:fs';
import { CliError, collectUsage, currentCommand, currentUsage, enterCommand, HelpShown, PROGRAM } from './args.js';

type Command = { run(argv: string[]): Promise<number> };

/** Every command, in the order the usage lists them; each says its options by declaring them (see `parse`). */
const COMMANDS: Record<string, () => Promise<Command>> = {
  init: () => import('./commands/init.js'),
  serve: () => import('./commands/serve.js'),
  token: () => import('./commands/token.js'),
  kb: () => import('./commands/kb.js'),
  tickets: () => import('./commands/tickets.js'),
  integrations: () => import('./commands/integrations.js'),
  insights: () => import('./commands/insights.js'),
  retention: () => import('./commands/retention.js'),
  mcp: () => import('./commands/mcp.js'),
};

const NOTES = `Settings: every command reads ./.env when it exists (as init writes it); the environment wins.
Data lives in --data DIR (default: $SUPPORT_CHAT_DATA, else ./.support-chat), or in the
PostgreSQL database of --database URL (default: $SUPPORT_CHAT_DATABASE_URL).
--org defaults to $SUPPORT_CHAT_ORG. Each integration setting comes from the organization's own
settings, else from the environment (PLAIN_API_KEY, LINEAR_TEAM_ID, SUPPORT_CHAT_WEBHOOK_URL, …).

${PROGRAM} COMMAND --help describes one command and its options.`;

/** The usage of every command, each line made from the options the command declares. */
export async function usage(): Promise<string> {
  const lines: string[] = [];
  for (const [name, load] of Object.entries(COMMANDS)) {
    const command = await load();
    const got = await collectUsage([name], () => command.run([]));
    lines.push(...(got.length ? got : [`${PROGRAM} ${name}`]));
  }
  return `Usage: ${PROGRAM} <command> [options]\n\nCommands:\n${lines.map((l) => `  ${l.slice(PROGRAM.length + 1)}`).join('\n')}\n\n${NOTES}`;
}

/** Runs one command line; resolves with the exit code (0 done or help, 1 failed, 2 bad arguments). */
export async function main(argv: string[]): Promise<number> {
  // Node ≥ 20.12 reads a .env file itself; what the environment already has wins.
  if (existsSync('.env')) process.loadEnvFile('.env');
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (name) console.log(await usage());
    else console.error(`${PROGRAM}: name a command: one of ${Object.keys(COMMANDS).join(', ')} (${PROGRAM} --help lists them with their options)`);
    return name ? 0 : 2;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    console.error(`${PROGRAM}: unknown command "${name}": one of ${Object.keys(COMMANDS).join(', ')} (${PROGRAM} --help lists them with their options)`);
    return 2;
  }
  enterCommand(name);
  try {
    const command = await load();
    return await command.run(rest);
  } catch (error) {
    if (error instanceof HelpShown) return 0;
    if (error instanceof CliError) {
      const line = currentUsage();
      console.error(`${PROGRAM} ${currentCommand()}: ${error.message}${error.usage && line ? `; usage: ${line}` : ''}`);
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
