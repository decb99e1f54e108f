/** @module Global setup of the browser test projects: one line saying what to install when no browser is found. */
import { requireChromium } from '../../scripts/chromium.mjs';

export default function setup(): void {
  requireChromium();
}
