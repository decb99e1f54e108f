// Type-aware lint for everything; the Lit plugin for the widget.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import lit from 'eslint-plugin-lit';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.support-chat/**', 'custom-elements.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[property.name='innerHTML']", message: 'Never inject HTML.' },
        { selector: "MemberExpression[property.name='outerHTML']", message: 'Never inject HTML.' },
        { selector: "Identifier[name='unsafeHTML']", message: 'Never inject HTML.' },
        { selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: 'Never inject HTML.' },
      ],
    },
  },
  {
    files: ['src/widget/**/*.ts', 'test/widget/**/*.ts'],
    ...lit.configs['flat/recommended'],
  },
  {
    // The widget's bundle (≤ 25 KB gzipped) must not carry a schema library: it shares plain
    // constants from protocol/limits.ts; the schemas are for proxy, server and tests.
    files: ['src/widget/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'zod', message: 'The widget must not bundle zod.' }], patterns: [{ group: ['**/protocol/schemas', '**/protocol/schemas/**', 'zod/**'], message: 'The widget must not bundle zod.' }] },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', '.ci/**/*.mjs', 'bin/**/*.js', 'src/cli/templates/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['demo/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
