/** @module `support-chat serve`: the v0 API over HTTP until SIGINT/SIGTERM, then a graceful shutdown. */
import { startServer } from '../../server/index.js';
import { CliError, dataDir, parse } from '../args.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { port: { type: 'string' }, host: { type: 'string' } }, false);
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, got "${values.port}"`);
  const leaseMs = process.env.SUPPORT_CHAT_JOB_LEASE_MS ? Number(process.env.SUPPORT_CHAT_JOB_LEASE_MS) : undefined;
  const { url, close } = await startServer({ dataDir: dataDir(values.data), port, host: values.host ?? '127.0.0.1', jobLeaseMs: leaseMs });
  console.log(`support-chat API listening on ${url}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.error(`support-chat: ${signal} received, finishing in-flight requests`);
      close().then(resolve, resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}
