// ESLint (flat config): typescript-eslint's recommended rules over the TypeScript of the
// project. Formatting is Prettier's business (.prettierrc), not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'packages/client/src/generated/', '**/*.d.ts', 'coverage/', 'dist/', 'dist-bench/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,mts,js,mjs}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter or binding kept on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-control-regex': 'off',
      // 23 left in the OpenAPI, validation and client plumbing that walks untyped JSON schemas: to be typed, one at a time.
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    // Tests, benchmarks and scripts read loosely typed JSON bodies; `any` there is a choice, not a slip.
    files: ['test/**', 'bench/**', 'scripts/**', 'examples/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
