// Flat ESLint config: TypeScript rules for every project, plus Nx module boundaries so that
// apps depend on libs, libs never on apps, and no bounded context imports another's internals.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');
const prettier = require('eslint-config-prettier');

module.exports = [
  { ignores: ['**/node_modules', '**/dist', '**/.data', '**/.nx', '**/coverage', 'tmp'] },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:util'],
            },
            {
              sourceTag: 'type:domain',
              onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:util'],
            },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
            { sourceTag: 'scope:issuance', onlyDependOnLibsWithTags: ['scope:issuance', 'scope:shared'] },
            { sourceTag: 'scope:revocation', onlyDependOnLibsWithTags: ['scope:revocation', 'scope:shared'] },
            { sourceTag: 'scope:ocsp', onlyDependOnLibsWithTags: ['scope:ocsp', 'scope:shared'] },
            { sourceTag: 'scope:acme', onlyDependOnLibsWithTags: ['scope:acme', 'scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    // The embedded composition root is the one place that starts every context in one process
    // (CONTRACT section 1, `npm start`); it wires their root modules and nothing else.
    files: ['apps/embedded/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // The outsider suites start the whole system through the embedded suites' test support
    // (apps/embedded/test/support), as a client would reach it; they import no service code.
    files: ['tests/security/src/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // CommonJS configuration and tool scripts.
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
