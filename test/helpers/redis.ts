/**
 * @module Redis for tests: whether it answers at SUPPORT_CHAT_TEST_REDIS_URL (default
 * redis://127.0.0.1:6379), and the Redis Cluster slot of a key.
 */
import { createClient } from 'redis';

export const TEST_REDIS_URL = process.env.SUPPORT_CHAT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether Redis answers PING at `url` within half a second. */
export async function redisAvailable(url = TEST_REDIS_URL): Promise<boolean> {
  const client = createClient({ url, socket: { connectTimeout: 500, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    await client.quit();
    return true;
  } catch {
    return false;
  }
}

/** CRC16/XMODEM, the checksum Redis Cluster maps keys to slots with. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The Redis Cluster slot of `key` (what `CLUSTER KEYSLOT` answers): the CRC16 of its hash tag —
 * the text between the first `{` and the next `}`, when not empty — else of the whole key, mod 16384.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(new TextEncoder().encode(key)) % 16384;
}

/**
 * Waits, when Redis's clock is within `seconds` of a minute's end, for the next minute: a burst of
 * requests that must be counted in one rate limit window (Redis's clock sets the window) fits then.
 */
export async function awayFromWindowEnd(seconds: number, url = TEST_REDIS_URL): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const [now] = await client.time();
    const left = 60 - (Number(now) % 60);
    if (left < seconds) await new Promise((resolve) => setTimeout(resolve, left * 1_000 + 200));
  } finally {
    await client.close();
  }
}
