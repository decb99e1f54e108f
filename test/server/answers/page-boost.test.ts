/** The reader's page in the ranking (ranking/page-boost.ts): its own sections, its neighbours under the same folder, nothing elsewhere. */
import { describe, expect, it } from 'vitest';
import { PAGE_BOOST, pageBoost, pagePlace } from '../../../src/server/knowledge/ranking/page-boost.js';

describe('the page boost', () => {
  const on = (url: string) => pagePlace(url)!;

  it('weighs the page itself most, then pages under the same folder, then nothing', () => {
    const reader = on('https://docs.example/cli/commands?tab=2#sync');
    expect(pageBoost('https://docs.example/cli/commands#login', reader)).toBe(PAGE_BOOST.samePage);
    expect(pageBoost('https://docs.example/cli/install#npm', reader)).toBe(PAGE_BOOST.neighbour);
    expect(pageBoost('https://docs.example/cli', reader)).toBe(PAGE_BOOST.neighbour);
    expect(pageBoost('https://docs.example/cli/install/windows', reader)).toBe(PAGE_BOOST.neighbour);
    expect(pageBoost('https://docs.example/desktop/install', reader)).toBe(0);
    expect(pageBoost('https://docs.example/install', reader)).toBe(0);
  });

  it('reads index pages, .html files and relative section addresses as the same pages', () => {
    expect(pageBoost('https://docs.example/cli/install.html#npm', on('https://docs.example/cli/install'))).toBe(PAGE_BOOST.samePage);
    expect(pageBoost('https://docs.example/cli/', on('https://docs.example/cli/index.html'))).toBe(PAGE_BOOST.samePage);
    expect(pageBoost('products/cli/install#npm', on('https://docs.example/products/cli/commands'))).toBe(PAGE_BOOST.neighbour);
  });

  it('gives a page at the root no neighbours, and nothing without a page', () => {
    expect(pageBoost('https://docs.example/billing', on('https://docs.example/pricing'))).toBe(0);
    expect(pageBoost('https://docs.example/pricing#plans', on('https://docs.example/pricing'))).toBe(PAGE_BOOST.samePage);
    expect(pagePlace(undefined)).toBeNull();
    expect(pagePlace('')).toBeNull();
  });
});
