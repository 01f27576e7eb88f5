// Fails when `drizzle-kit generate` would write a new migration, i.e. when src/db/schema.ts
// changed without a committed migration. Generates into a scratch copy of drizzle/ so the
// working tree is never touched.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

// drizzle-kit treats --out as relative to the working directory, so the scratch copy lives
// under node_modules/.cache rather than the system temp directory.
const cacheDir = path.join('node_modules', '.cache');
mkdirSync(cacheDir, { recursive: true });
const scratch = path.relative(process.cwd(), mkdtempSync(path.join(cacheDir, 'migrations-')));
try {
  cpSync('drizzle', scratch, { recursive: true });
  const before = readdirSync(scratch);
  const output = execFileSync(
    'npx',
    [
      'drizzle-kit',
      'generate',
      '--dialect=postgresql',
      '--schema=./src/db/schema.ts',
      `--out=${scratch}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
  );
  const added = readdirSync(scratch).filter((name) => !before.includes(name));
  // drizzle-kit exits 0 even when it cannot read the folder: insist on its all-clear.
  if (added.length > 0 || !/No schema changes/i.test(output)) {
    console.error(output);
    console.error(
      `migration drift: src/db/schema.ts differs from drizzle/ (new: ${added.join(', ') || 'none'}).\n` +
        'Run `npm run db:generate` and commit the new migration.',
    );
    process.exitCode = 1;
  } else {
    console.log('migrations match src/db/schema.ts');
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
