// Where the system Chromium lives, and the flags it needs here: no browser is ever downloaded.
import { existsSync } from 'node:fs';

export function chromiumPath() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  for (const path of candidates) if (path && existsSync(path)) return path;
  throw new Error('Chromium not found: install the Debian package `chromium` or set CHROMIUM_PATH');
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
