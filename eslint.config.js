// Lint: typescript-eslint's strict type-checked rules over all TypeScript in the project, with the
// few adjustments below, each for a reason of this codebase.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'clients/*/dist/**',
      'clients/typescript/src/generated/**',
      'generated/**',
      '.tap/**',
      'bench/results/**',
      'node_modules/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'clients/*/bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Ids are bigints and counts are numbers; both print exactly in messages and URLs.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // noUncheckedIndexedAccess makes every index possibly undefined; `!` marks the places where
      // the code has just checked, which is clearer than a second check that cannot fail.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `return done(error)` in a callback-style Fastify hook, and `() => done()` shorthands, are the
      // idiom: the value returned is void either way.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
      // Fastify plugins without a `done` callback must return a promise, and the store interfaces
      // are async by contract: an `async` function that awaits nothing is how both are written.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks a parameter a signature requires but this code does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Answers are read as `any` JSON on purpose: the contract sentinel has checked every one
      // against openapi.yaml before a test looks at it.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Fixture documents are loose JSON that a test bends out of shape on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      // tap's subtests (t.test) run in order whether or not their promise is awaited.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'tap', name: 'test' },
            { from: 'package', package: '@tapjs/core', name: 'test' },
            { from: 'package', package: '@tapjs/test', name: 'test' },
          ],
        },
      ],
    },
  },
);
