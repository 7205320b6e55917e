import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { LAYERS, restrictedImports } from './scripts/layers.mjs';

/** The import layers (docs/architecture.md#layers) as no-restricted-imports, one block per layer. */
const layerRules = LAYERS.map((entry) => ({
  files: [`${entry.layer}/**/*.{ts,tsx,mts,js,mjs}`],
  rules: { 'no-restricted-imports': ['error', restrictedImports(entry)] },
}));

export default tseslint.config(
  {
    ignores: ['node_modules', 'out', 'dist', 'coverage', 'test-results', 'playwright-report', '.tmp'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-console': 'off',
    },
  },
  ...layerRules,
);
