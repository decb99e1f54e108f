export const MISSING_BROWSER: string;
export interface ChromiumLookup {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
  exists?: (path: string) => boolean;
  playwright?: () => string | null;
}
export function chromiumCandidates(lookup?: Omit<ChromiumLookup, 'exists' | 'playwright'>): string[];
export function findChromium(lookup?: ChromiumLookup): string | null;
export function chromiumPath(): string;
export function requireChromium(lookup?: ChromiumLookup): string;
export const chromiumArgs: string[];
