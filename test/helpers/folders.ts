/** @module Folders of files a test writes (a docs site, a Jekyll site), removed after each test. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * A maker of new folders named `<prefix>…` under the system's temporary folder, each holding the
 * files it is given (path inside it → text); every folder made is removed after each test.
 *
 * @example
 * const folder = testFolders('jekyll-');
 * const site = folder({ '_config.yml': 'title: Help\n', '_docs/refunds.md': '# Refunds\n' });
 */
export function testFolders(prefix: string): (files: Record<string, string>) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (files) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };
}
