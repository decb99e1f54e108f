/**
 * @module The package as users install it: `npm pack` from a tree with nothing built (as in a fresh
 * clone), and projects that install the tarball.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** Runs npm quietly in `cwd`; returns its stdout. */
export function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** Packs the repository's tracked files (no dist/, as a fresh clone) into `work`; the tarball's path and the files it holds. */
export function pack(work: string): { tarball: string; files: string[] } {
  const clone = join(work, 'clone');
  const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const file of tracked) {
    if (!existsSync(join(repoRoot, file))) continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(repoRoot, file), join(clone, file));
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(clone, 'node_modules'), 'dir');
  // prepack's build prints to stdout before npm's JSON report, which starts on a line of its own.
  const output = npm(['pack', '--json', '--pack-destination', work], clone);
  const packed = JSON.parse(output.slice(output.lastIndexOf('\n[\n') + 1)) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(work, packed[0]!.filename), files: packed[0]!.files.map((f) => f.path) };
}

/** `npm install` arguments that install `tarball` without network builds; run `finishInstall` after. */
export function installArgs(tarball: string): string[] {
  return ['install', '--prefer-offline', '--ignore-scripts', tarball];
}

/**
 * After an install with `--ignore-scripts`: better-sqlite3's native build is taken from this
 * checkout when the versions match (compiling it adds minutes and tests nothing of ours).
 */
export function finishInstall(app: string): void {
  const version = (dir: string) => (JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
  if (version(app) === version(repoRoot)) cpSync(join(repoRoot, 'node_modules/better-sqlite3/build'), join(app, 'node_modules/better-sqlite3/build'), { recursive: true });
  else npm(['rebuild', 'better-sqlite3'], app);
}
