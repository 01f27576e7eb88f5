import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'drizzle/', '.mcp-drift/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  {
    // The console's browser script: a classic script, served as is (no build step).
    files: ['console-assets/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'script' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
  {
    // Only the program's main, run-cli.ts, may end the process (house style: one exit point).
    files: ['src/**/*.ts'],
    ignores: ['src/cli/run-cli.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'exit',
          message: 'Throw a DriftError; src/cli/run-cli.ts maps it to an exit code.',
        },
      ],
    },
  },
  {
    // SQL lives in repositories (docs/architecture.md, "One seam per table"): a file that is
    // not a `*-repo.ts` or in src/db/ may name row types, but may not build a query, so it
    // may not import drizzle's query builders or the tables themselves.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/**/*-repo.ts', 'src/db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['drizzle-orm', 'drizzle-orm/*'],
              allowTypeImports: true,
              message: 'Queries belong in a *-repo.ts file; call a repository function instead.',
            },
            {
              group: ['**/db/schema.js'],
              allowTypeImports: true,
              message:
                'Tables are queried only in *-repo.ts files; import row types with `import type`.',
            },
          ],
        },
      ],
    },
  },
);
