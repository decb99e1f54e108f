/** Which browser origins may call `/v0/mcp` (DNS-rebinding protection), and the list `SUPPORT_CHAT_MCP_ORIGINS` holds. */
import { describe, expect, it } from 'vitest';
import { createServer, ServerConfigError } from '../../src/server/index.js';
import { originAllowed, parseOrigins } from '../../src/server/mcp/origin.js';

describe('originAllowed', () => {
  const listed = parseOrigins('https://docs.acme.example, https://app.acme.example:8443/');

  it('lets requests without an Origin through (agents and editors send none)', () => {
    expect(originAllowed(null, 'api.acme.example', listed)).toBe(true);
  });

  it('accepts listed origins, and loopback ones sent to a loopback server', () => {
    expect(originAllowed('https://docs.acme.example', 'api.acme.example', listed)).toBe(true);
    expect(originAllowed('https://app.acme.example:8443', 'api.acme.example', listed)).toBe(true);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8787', 'http://[::1]:3000']) expect(originAllowed(origin, '127.0.0.1:8787', listed), origin).toBe(true);
  });

  it('refuses a rebound name (Host and Origin alike), an unlisted origin, a loopback origin sent to a public name, and "null"', () => {
    expect(originAllowed('http://evil.example.com', 'evil.example.com', listed)).toBe(false);
    expect(originAllowed('https://docs.acme.example:444', 'api.acme.example', listed)).toBe(false);
    expect(originAllowed('http://localhost:5173', 'api.acme.example', listed)).toBe(false);
    expect(originAllowed('null', '127.0.0.1:8787', listed)).toBe(false);
    expect(originAllowed('http://localhost', null, listed)).toBe(false);
  });
});

describe('SUPPORT_CHAT_MCP_ORIGINS', () => {
  it('refuses an entry that is not an origin, naming it', async () => {
    for (const entry of ['docs.acme.example', 'https://docs.acme.example/path', 'ftp://docs.acme.example']) {
      await expect(createServer({ dataDir: ':memory:', env: { SUPPORT_CHAT_MCP_ORIGINS: `https://ok.example,${entry}` } })).rejects.toThrow(
        new ServerConfigError(`SUPPORT_CHAT_MCP_ORIGINS: "${entry}" is not an origin such as https://docs.example.com (scheme, host and port only)`),
      );
    }
  });
});
