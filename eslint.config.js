// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'crypto', 'http', 'https', 'net', 'child_process', 'url'];

/** The imports workflow code may not make (Temporal's deterministic sandbox), with `more` of a folder's own. */
const sandboxed = (...more) => [
  { group: nodeBuiltins, message: 'Workflow and contract code must not import Node modules.' },
  { group: ['**/api/**', '**/api', 'got'], message: 'Workflows reach the service only through activities.' },
  {
    group: [
      '**/activities/**',
      '**/activities',
      '**/exactly-once/*',
      '!**/exactly-once/workflow',
      '!**/exactly-once/messages.js',
    ],
    allowTypeImports: true,
    message: 'Workflows import activity types only.',
  },
  ...more,
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'contract/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'scripts/*.mjs'] } },
    },
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'test', 'it', 'suite', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      'import-x/no-cycle': 'error',
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node modules, no service client.
    files: ['src/workflows/**/*.ts', 'src/contract/**/*.ts', 'src/exactly-once/messages.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: sandboxed() }] },
  },
  {
    // src/exactly-once/ holds both sides: its workflow/ folder (and messages.ts) runs in the sandbox, the rest in activities.
    files: ['src/exactly-once/workflow/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: sandboxed({
            group: ['../*.js', '!../messages.js'],
            allowTypeImports: true,
            message: 'Workflows import activity types only.',
          }),
        },
      ],
    },
  },
  {
    // Configuration is read in one place per program: nothing outside src/config/ reads the environment.
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/config/env.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through a module of src/config/.' },
      ],
    },
  },
  {
    // The HTTP client knows no Temporal and nothing above it.
    files: ['src/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@temporalio/*', '**/activities/**', '**/workflows/**', '**/contract/**', '**/simulator/**'],
              message: 'src/api/ is a plain client: it imports only src/vocabulary.ts of ours.',
            },
          ],
        },
      ],
    },
  },
  {
    // The simulator plays the service: it imports nothing of the client side (it keeps its own vocabulary).
    files: ['src/simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@temporalio/*',
                '**/api/**',
                '**/activities/**',
                '**/workflows/**',
                '**/contract/**',
                '**/vocabulary*',
              ],
              message: 'The simulator imports nothing above it (its configuration module excepted).',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests inspect raw wire JSON (the simulator's and the service's bodies) on purpose; src/ stays strict.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
