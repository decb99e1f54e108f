// `npm run build:node` step: the insights dashboard's static page, script and styles next to the
// compiled server (dist/node/server/dashboard/assets), so an installed package serves them.
import { cpSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
cpSync(join(root, 'src/server/dashboard/assets'), join(root, 'dist/node/server/dashboard/assets'), { recursive: true });
// And the files `support-chat-kit init` writes into a site (server.mjs).
cpSync(join(root, 'src/cli/templates'), join(root, 'dist/node/cli/templates'), { recursive: true });
// And the docs-site plugins' files that the site's own bundler compiles (Starlight's header search, Docusaurus's theme).
for (const name of ['starlight', 'docusaurus']) {
  const client = join(root, `src/plugins/${name}/client`);
  if (existsSync(client)) cpSync(client, join(root, `dist/node/plugins/${name}/client`), { recursive: true });
}
