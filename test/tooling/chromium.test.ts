import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { chromiumCandidates, findChromium, MISSING_BROWSER } from '../../scripts/chromium.mjs';

const root = resolve(import.meta.dirname, '../..');

function found(platform: NodeJS.Platform, present: string[], env: NodeJS.ProcessEnv = {}, playwright: string | null = null): string | null {
  const set = new Set(present);
  return findChromium({ env, platform, home: platform === 'win32' ? 'C:\\Users\\ada' : '/home/ada', exists: (p) => set.has(p), playwright: () => playwright });
}

describe('finding a browser for the browser tests', () => {
  it('prefers CHROMIUM_PATH when it exists, and ignores it when it does not', () => {
    expect(found('linux', ['/opt/my/chrome', '/usr/bin/chromium'], { CHROMIUM_PATH: '/opt/my/chrome' })).toBe('/opt/my/chrome');
    expect(found('linux', ['/usr/bin/chromium'], { CHROMIUM_PATH: '/nope/chrome' })).toBe('/usr/bin/chromium');
  });

  it.each([
    ['Debian and Arch', '/usr/bin/chromium'],
    ['Fedora and Alpine', '/usr/bin/chromium-browser'],
    ['Google Chrome on Linux', '/usr/bin/google-chrome-stable'],
    ['Edge on Linux', '/usr/bin/microsoft-edge'],
    ['a PATH entry', '/home/ada/bin/chromium'],
  ])('finds %s', (_name, path) => {
    expect(found('linux', [path], { PATH: '/home/ada/bin:/usr/bin' })).toBe(path);
  });

  it('finds Chrome, Chromium and Edge at their standard places on macOS', () => {
    expect(found('darwin', ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'])).toBe('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    expect(found('darwin', ['/home/ada/Applications/Chromium.app/Contents/MacOS/Chromium'])).toBe('/home/ada/Applications/Chromium.app/Contents/MacOS/Chromium');
    expect(found('darwin', ['/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge'])).toBe('/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge');
  });

  it('finds Chrome and Edge at their standard places on Windows', () => {
    const env = { PROGRAMFILES: 'C:\\Program Files', 'PROGRAMFILES(X86)': 'C:\\Program Files (x86)', LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' };
    expect(found('win32', ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'], env)).toBe('C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe');
    expect(found('win32', ['C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe'], env)).toBe('C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe');
    expect(found('win32', ['C:\\Users\\ada\\AppData\\Local\\Chromium\\Application\\chrome.exe'], env)).toBe('C:\\Users\\ada\\AppData\\Local\\Chromium\\Application\\chrome.exe');
  });

  it('falls back to a browser Playwright installed, and to null when there is none', () => {
    const installed = '/home/ada/.cache/ms-playwright/chromium-1200/chrome-linux/chrome';
    expect(found('linux', [installed], {}, installed)).toBe(installed);
    expect(found('linux', [], {}, installed)).toBeNull();
    expect(found('darwin', [])).toBeNull();
    expect(chromiumCandidates({ env: {}, platform: 'linux' })).toContain('/usr/bin/chromium');
  });

  it('stops a browser test run with one line saying what to install when no browser is found', () => {
    const script = `import('./scripts/chromium.mjs').then((m) => { m.requireChromium({ exists: () => false, playwright: () => null }); console.log('went on'); })`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${MISSING_BROWSER}\n`);
  });
});
