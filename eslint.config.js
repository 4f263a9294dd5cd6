// Lint: typescript-eslint's strict type-checked rules over all TypeScript in the project, with the
// few adjustments below, each for a reason of this codebase.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'clients/typescript/dist/**', 'generated/**', '.tap/**', 'bench/results/**', 'node_modules/**'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Ids are bigints and counts are numbers; both print exactly in messages and URLs.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // noUncheckedIndexedAccess makes every index possibly undefined; `!` marks the places where
      // the code has just checked, which is clearer than a second check that cannot fail.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // A leading underscore marks a parameter a signature requires but this code does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // tap runs a subtest's callback as it is; `async (t) => { ... }` without an await is its idiom.
      '@typescript-eslint/require-await': 'off',
      // tap's subtests (t.test) run in order whether or not their promise is awaited.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'tap', name: 'test' }, { from: 'package', package: '@tapjs/core', name: 'test' }, { from: 'package', package: '@tapjs/test', name: 'test' }] }],
    },
  },
);
