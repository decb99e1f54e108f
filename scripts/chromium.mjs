// Where a Chromium-family browser lives for the browser tests, and the flags it needs here. Nothing
// here downloads a browser, and nothing looks for one until a browser test project runs: building,
// `npm start` and the Node tests need no browser.
//
// A plain list of the standard install places rather than a finder package: chrome-launcher (the
// maintained one) knows neither Edge nor the browsers Playwright installs, and the list is short.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The one line printed when no browser is found. */
export const MISSING_BROWSER =
  'No Chromium, Chrome or Edge found for the browser tests: install one (Debian/Ubuntu: `apt-get install chromium`; ' +
  'Fedora: `dnf install chromium`; Arch: `pacman -S chromium`; Alpine: `apk add chromium`; macOS/Windows: Google Chrome), ' +
  'run `npx playwright install chromium`, or set CHROMIUM_PATH.';

const LINUX_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'microsoft-edge-stable'];
const LINUX_PLACES = ['/usr/lib/chromium/chromium', '/usr/lib/chromium/chrome', '/usr/lib64/chromium-browser/chromium-browser', '/snap/bin/chromium', '/opt/google/chrome/chrome'];
const MAC_APPS = ['Google Chrome.app/Contents/MacOS/Google Chrome', 'Chromium.app/Contents/MacOS/Chromium', 'Microsoft Edge.app/Contents/MacOS/Microsoft Edge', 'Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary'];
const WINDOWS_APPS = ['Google\\Chrome\\Application\\chrome.exe', 'Chromium\\Application\\chrome.exe', 'Microsoft\\Edge\\Application\\msedge.exe'];

/** Every place a browser may be, most specific first, for `platform`. */
export function chromiumCandidates({ env = process.env, platform = process.platform, home = homedir() } = {}) {
  const candidates = [];
  if (env.CHROMIUM_PATH) candidates.push(env.CHROMIUM_PATH);
  if (platform === 'darwin') {
    for (const app of MAC_APPS) candidates.push(join('/Applications', app), join(home, 'Applications', app));
  } else if (platform === 'win32') {
    const roots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter(Boolean);
    for (const root of roots) for (const app of WINDOWS_APPS) candidates.push(`${root}\\${app}`);
  } else {
    // Debian/Ubuntu, Fedora, Arch and Alpine put a launcher on the PATH under one of these names.
    const dirs = (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter(Boolean);
    for (const dir of [...new Set([...dirs, '/usr/bin', '/usr/local/bin'])]) for (const name of LINUX_NAMES) candidates.push(join(dir, name));
    candidates.push(...LINUX_PLACES);
  }
  return candidates;
}

/** The browser Playwright installed (`npx playwright install chromium`), when there is one. */
function playwrightChromium() {
  try {
    const { chromium } = createRequire(import.meta.url)('playwright-core');
    return chromium.executablePath();
  } catch {
    return null;
  }
}

/** The first browser found, or null. CHROMIUM_PATH is taken only when it exists. */
export function findChromium({ env = process.env, platform = process.platform, home = homedir(), exists = existsSync, playwright = playwrightChromium } = {}) {
  for (const path of chromiumCandidates({ env, platform, home })) if (exists(path)) return path;
  const installed = playwright();
  return installed && exists(installed) ? installed : null;
}

/** The browser for a test run; throws an Error whose message is MISSING_BROWSER when none is found. */
export function chromiumPath() {
  const path = findChromium();
  if (!path) throw new Error(MISSING_BROWSER);
  return path;
}

/** For a browser test project's global setup: the browser's path, or one line on stderr and exit 1. */
export function requireChromium(lookup = {}) {
  const path = findChromium(lookup);
  if (!path) {
    process.stderr.write(`${MISSING_BROWSER}\n`);
    process.exit(1);
  }
  return path;
}

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];
