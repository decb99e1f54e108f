/**
 * @module What every CLI command shares: strict option parsing that also answers `--help` from the
 * options a command declares, one-line usage errors, actions (`kb ingest`, `kb stats`), and the
 * defaults every command reads the same way (data directory, organization, `.env`).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolve } from 'node:path';

/** The command's name, as the package installs it and the README types it. */
export const PROGRAM = 'support-chat-kit';

/** A usage error: printed as one line without a stack, exit code 2. `usage: false` for errors that no other arguments would fix. */
export class CliError extends Error {
  override name = 'CliError';
  readonly usage: boolean;
  constructor(message: string, options: { usage?: boolean } = {}) {
    super(message);
    this.usage = options.usage ?? true;
  }
}

/** Thrown by `parse` after it printed (or, while the usage is being collected, without printing) a command's help: exit 0. */
export class HelpShown extends Error {
  override name = 'HelpShown';
  constructor(readonly usage: string) {
    super(usage);
  }
}

/** One option as a command declares it: `parseArgs`'s own fields, and what `--help` says about it. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>[string] & {
  /** What it does, for `--help`. */
  description?: string;
  /** The value's name in the usage line (`--org ORG`); default: the option's name in capitals. */
  value?: string;
  /** Must be given (or have its environment default); shown without brackets. */
  required?: boolean;
  /** The environment variable that supplies it when the option is absent. */
  env?: string;
  /** The value without the option and its variable, for `--help`. */
  fallback?: string;
};

/** The options every command takes to find its database. */
const COMMON: Record<string, OptionSpec> = {
  data: { type: 'string', value: 'DIR', env: 'SUPPORT_CHAT_DATA', fallback: './.support-chat', description: 'the data directory' },
  database: { type: 'string', value: 'URL', env: 'SUPPORT_CHAT_DATABASE_URL', description: 'a PostgreSQL database instead of SQLite in the data directory' },
};

/** The command being run, for usage lines: `kb ingest`. Set by the entry point and by `dispatch`. */
const context: { path: string[]; collecting: boolean; usage: string | undefined } = { path: [], collecting: false, usage: undefined };

/** Starts a command: its name for usage lines and errors. */
export function enterCommand(name: string): void {
  context.path = [name];
  context.usage = undefined;
}

/** The usage line of the command running now (`support-chat-kit kb ingest PATH... --org ORG …`), once it parsed its options. */
export function currentUsage(): string | undefined {
  return context.usage;
}

/** The command running now, for error lines: `kb ingest`. */
export function currentCommand(): string {
  return context.path.join(' ');
}

/**
 * Runs `fn` with every `parse` throwing `HelpShown` with its usage line instead of printing help:
 * how the top-level usage learns each command's line from the options it declares.
 */
export async function collectUsage(path: string[], fn: () => Promise<unknown>): Promise<string[]> {
  const saved = { ...context };
  context.path = path;
  context.collecting = true;
  try {
    await fn();
    return [];
  } catch (error) {
    if (error instanceof HelpShown) return error.usage.split('\n');
    return [];
  } finally {
    Object.assign(context, saved);
  }
}

function usageLine(options: Record<string, OptionSpec>, positionals: string | undefined): string {
  const parts = [PROGRAM, ...context.path];
  if (positionals) parts.push(positionals);
  for (const [name, spec] of Object.entries(options)) {
    const flag = spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value ?? name.toUpperCase().replace(/-/g, '_')}`;
    parts.push(spec.required ? flag : `[${flag}]`);
  }
  return parts.join(' ');
}

function helpText(line: string, options: Record<string, OptionSpec>): string {
  const rows = Object.entries(options).map(([name, spec]) => {
    const flag = spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.value ?? name.toUpperCase().replace(/-/g, '_')}`;
    const defaults = [spec.env && `$${spec.env}`, spec.fallback].filter(Boolean).join(', else ');
    const about = `${spec.description ?? ''}${defaults ? ` (default: ${defaults})` : ''}`;
    return [flag, about] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [`Usage: ${line}`, '', 'Options:', ...rows.map(([flag, about]) => `  ${flag.padEnd(width)}  ${about}`.trimEnd()), `  ${'--help'.padEnd(width)}  this help`].join('\n');
}

const wantsHelp = (argv: string[]): boolean => {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

type Values<T> = { [K in keyof T]?: T[K] extends { type: 'boolean' } ? boolean : string } & { data?: string; database?: string };

/**
 * Parses options strictly, with `--data` and `--database` that every command takes. `--help`
 * prints the usage made from the declared options and throws `HelpShown`; unknown options, missing
 * values and missing required options become a CliError. `allowPositionals` may name them for the
 * usage line (`'PATH...'`).
 */
export function parse<T extends Record<string, OptionSpec>>(
  argv: string[],
  options: T,
  allowPositionals: boolean | string = true,
): { values: Values<T>; positionals: string[] } {
  const all: Record<string, OptionSpec> = { ...options, ...COMMON };
  const positionalName = typeof allowPositionals === 'string' ? allowPositionals : allowPositionals ? '[ARG...]' : undefined;
  context.usage = usageLine(options, positionalName);
  if (context.collecting) throw new HelpShown(context.usage);
  if (wantsHelp(argv)) {
    console.log(helpText(context.usage, all));
    throw new HelpShown(context.usage);
  }
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(all)) {
    const { description: _d, value: _v, required: _r, env: _e, fallback: _f, ...own } = spec;
    config[name] = own;
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: config, allowPositionals: positionalName !== undefined, strict: true });
  } catch (error) {
    // Node's messages end with advice for scripts ("To specify a positional argument starting with a '-', …"): the first sentence is the one for people.
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(message.split(/\. (?=[A-Z])/)[0]!.replace(/\.$/, ''));
  }
  for (const [name, spec] of Object.entries(options)) {
    if (parsed.values[name] === undefined && spec.env && process.env[spec.env]) parsed.values[name] = process.env[spec.env];
    if (spec.required && (parsed.values[name] === undefined || parsed.values[name] === '')) {
      throw new CliError(`missing required option --${name}${spec.env ? ` (or ${spec.env})` : ''}`);
    }
  }
  return parsed as { values: Values<T>; positionals: string[] };
}

/**
 * A command made of actions (`token create|list|revoke`): runs the named one; with none, `--help`
 * or an unknown name, prints or names the actions with their usage lines.
 */
export async function dispatch(argv: string[], actions: Record<string, (argv: string[]) => Promise<number>>): Promise<number> {
  const [action, ...rest] = argv;
  const names = Object.keys(actions);
  const run = action !== undefined ? actions[action] : undefined;
  if (run && Object.hasOwn(actions, action!)) {
    context.path = [...context.path, action!];
    return run(rest);
  }
  if (action === '--help' || action === '-h' || context.collecting) {
    const lines = await actionUsage(actions);
    if (context.collecting) throw new HelpShown(lines.join('\n'));
    console.log(`Usage:\n${lines.map((l) => `  ${l}`).join('\n')}\n\n${PROGRAM} ${context.path.join(' ')} ACTION --help describes one.`);
    throw new HelpShown(lines.join('\n'));
  }
  const what = action === undefined ? 'name an action' : `unknown action "${action}"`;
  throw new CliError(`${what}: one of ${names.join(', ')} (${PROGRAM} ${context.path.join(' ')} --help shows how to use each)`, { usage: false });
}

/** Each action's usage line, from the options it declares. */
async function actionUsage(actions: Record<string, (argv: string[]) => Promise<number>>): Promise<string[]> {
  const lines: string[] = [];
  for (const [name, run] of Object.entries(actions)) {
    const got = await collectUsage([...context.path, name], () => run([]));
    lines.push(...(got.length ? got : [`${PROGRAM} ${[...context.path, name].join(' ')}`]));
  }
  return lines;
}

/** `--data DIR`, else `$SUPPORT_CHAT_DATA`, else `./.support-chat`; relative to the working directory, with either slash on Windows. */
export function dataDir(value: string | undefined): string {
  return resolve(value ?? process.env.SUPPORT_CHAT_DATA ?? '.support-chat');
}

/** The value of a required option, or a CliError naming it. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new CliError(`missing required option --${flag}`);
  return value;
}

/** `--org`: the organization, required unless `$SUPPORT_CHAT_ORG` (as `init` writes to `.env`) names it. */
export const ORG_OPTION = { type: 'string', value: 'ORG', env: 'SUPPORT_CHAT_ORG', required: true, description: 'the organization' } as const satisfies OptionSpec;
