/** @module Small helpers the CLI commands share: option parsing and the data directory. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolve } from 'node:path';

/** The command's name, as the package installs it and the README types it. */
export const PROGRAM = 'support-chat-kit';

/** A usage error: printed without a stack, exit code 2. */
export class CliError extends Error {
  override name = 'CliError';
}

/** Parses options strictly, with `--data` and `--database` that every command takes; unknown options and missing values become a CliError. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
  allowPositionals = true,
): { values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string } & { data?: string; database?: string }; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options: { ...options, data: { type: 'string' }, database: { type: 'string' } }, allowPositionals, strict: true });
    return parsed as unknown as ReturnType<typeof parse<T>>;
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

/** `--data DIR`, else `$SUPPORT_CHAT_DATA`, else `./.support-chat`. */
export function dataDir(value: string | undefined): string {
  return resolve(value ?? process.env.SUPPORT_CHAT_DATA ?? '.support-chat');
}

/** The value of a required option, or a CliError naming it. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new CliError(`missing required option --${flag}`);
  return value;
}
