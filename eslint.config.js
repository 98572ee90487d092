import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import tsdoc from 'eslint-plugin-tsdoc';
import globals from 'globals';

export default tseslint.config(
  // examples/ are projects of their own: typechecked and run against the packed package by
  // test/package/vitest-entry.test.ts.
  // captures/ has its own pinned dependencies, installed only by `npm run capture-fixtures`.
  {
    ignores: [
      'dist',
      'node_modules',
      'coverage',
      'test/fixtures',
      'bench/results',
      'examples',
      'captures',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { tsdoc },
    rules: {
      'tsdoc/syntax': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Explicit named exports keep the public surface deliberate (OTel JS does the same).
      'no-restricted-syntax': ['error', 'ExportAllDeclaration'],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests wrap async functions that need no await, to check what tracing does with promises.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['eslint.config.js', '.dependency-cruiser.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    // Preloaded (`node --import`) into the bench's spanscore processes, which run no TypeScript.
    files: ['bench/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: globals.node,
    },
  },
  {
    // The results page's script runs in the browser, as plain JavaScript.
    files: ['ui/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'module',
      globals: { ...globals.browser, uPlot: 'readonly' },
    },
  },
);
