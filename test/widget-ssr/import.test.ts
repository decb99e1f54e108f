import { describe, expect, it } from 'vitest';

describe('the widget on a server', () => {
  it('imports where there is no window without throwing', async () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
    const module = await import('../../src/widget/index.js');
    expect(typeof module.SupportChat).toBe('function');
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
  });

  it('imports the script-tag build entry without a document', async () => {
    await expect(import('../../src/widget/auto.js')).resolves.toBeDefined();
  });
});
