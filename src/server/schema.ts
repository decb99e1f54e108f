/** @module Every part of the server's schema, in one list: what `migrate` applies when a database opens. */
import { kbMigrations } from './knowledge/index.js';
import { integrationMigrations } from './escalation/settings.js';
import { followUpMigrations } from './escalation/follow-ups.js';
import { insightsMigrations } from './insights/migrations.js';
import { searchMigrations } from './insights/searches.js';
import { channelMigrations } from './insights/channels.js';
import { coreMigrations } from './store/migrations.js';
import type { Migration } from './store/migrate.js';
import { ticketMigrations } from './tickets/store.js';
import { visitorMigrations } from './store/visitor-migrations.js';

export const migrations: readonly Migration[] = [...coreMigrations, ...ticketMigrations, ...kbMigrations, ...integrationMigrations, ...followUpMigrations, ...insightsMigrations, ...searchMigrations, ...visitorMigrations, ...channelMigrations];
