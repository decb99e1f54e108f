/**
 * @module A server process for crash tests: `SLOW=1` answers never finish (so the process can be
 * killed mid-answer); otherwise answers come at once. Prints the URL when listening.
 */
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from './test-engine.js';

const engine = createTestEngine();
engine.hold = process.env.SLOW === '1';
const { url, close } = await startServer({
  dataDir: process.env.DATA_DIR!,
  port: 0,
  engine,
  logger: silentLogger,
  jobLeaseMs: Number(process.env.LEASE_MS ?? 500),
  maxAttempts: Number(process.env.MAX_ATTEMPTS ?? 3),
});
console.log(`listening ${url}`);
process.on('SIGTERM', () => void close().then(() => process.exit(0)));
