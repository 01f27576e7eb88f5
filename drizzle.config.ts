import { defineConfig } from 'drizzle-kit';

// Migrations are generated from src/db/schema.ts and committed; CI fails when generating
// again would produce a new one (scripts/check-migration-drift.mjs).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
