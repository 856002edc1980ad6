// Flat ESLint config: TypeScript rules for every project, plus Nx module boundaries (the layers and
// contexts of docs/architecture.md, "Module boundaries"): apps depend on libs, libs never on apps,
// no app imports another app, and the composition roots (apps/embedded, tools, bench) reach an app
// only through its public `@ca/<app>` index.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');
const prettier = require('eslint-config-prettier');

const LIBS = ['type:contracts', 'type:util', 'type:domain', 'type:infra'];
const APP_INDEXES = [
  '@ca/gateway',
  '@ca/issuance',
  '@ca/revocation',
  '@ca/ocsp-responder',
  '@ca/acme',
  '@ca/webhooks',
];

/** The boundary rule; `allow` names the only app entry points a composition root may import. */
const boundaries = (allow = []) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow,
    depConstraints: [
      // Layers: contracts import nothing; utilities only contracts; the domain (domain, pki, custody)
      // never the bus or the database; infrastructure (messaging, persistence, runtime) no domain.
      { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
      { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
      { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:domain'] },
      { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:infra'] },
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: LIBS },
      // Test support (libs/test-support) depends on nothing and serves the suites and bench only;
      // the composition root and tools/ may not use it (no-restricted-imports below).
      { sourceTag: 'type:test-support', onlyDependOnLibsWithTags: [] },
      { sourceTag: 'type:composition', onlyDependOnLibsWithTags: [...LIBS, 'type:app'] },
      {
        sourceTag: 'type:tool',
        onlyDependOnLibsWithTags: [...LIBS, 'type:app', 'type:composition', 'type:test-support'],
      },
      {
        sourceTag: 'type:test',
        onlyDependOnLibsWithTags: [...LIBS, 'type:composition', 'type:test', 'type:test-support'],
      },
      // Contexts: each app sees shared libs plus its own; custody (CA keys) is issuance's and the
      // responder's (its signer keys); Problem Details is the admin API's (gateway).
      { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
      { sourceTag: 'scope:custody', onlyDependOnLibsWithTags: ['scope:shared'] },
      // The gateway and acme use custody's sealed box only: an ACME EAB key crosses the bus sealed.
      {
        sourceTag: 'scope:gateway',
        onlyDependOnLibsWithTags: ['scope:gateway', 'scope:custody', 'scope:shared'],
      },
      { sourceTag: 'scope:acme', onlyDependOnLibsWithTags: ['scope:acme', 'scope:custody', 'scope:shared'] },
      // The webhooks context seals each signing secret to the gateway, like acme's EAB keys.
      {
        sourceTag: 'scope:webhooks',
        onlyDependOnLibsWithTags: ['scope:webhooks', 'scope:custody', 'scope:shared'],
      },
      {
        sourceTag: 'scope:issuance',
        onlyDependOnLibsWithTags: ['scope:issuance', 'scope:custody', 'scope:shared'],
      },
      { sourceTag: 'scope:revocation', onlyDependOnLibsWithTags: ['scope:revocation', 'scope:shared'] },
      { sourceTag: 'scope:ocsp', onlyDependOnLibsWithTags: ['scope:ocsp', 'scope:custody', 'scope:shared'] },
      { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared'] },
      // The console runs in the browser and reaches the system only through the public API, whose
      // answers it names by the contracts' types (type imports only, below).
      { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['type:contracts'] },
    ],
  },
];

/** Deep paths into an app's src/ (relative or aliased) are internals, whatever the boundary rule resolves. */
const noAppInternals = [
  'error',
  {
    patterns: [
      {
        group: ['**/apps/*/src', '**/apps/*/src/**', '@ca/*/src/**'],
        message:
          'Import an app through its public index (@ca/gateway, @ca/issuance, …), never its src/ internals.',
      },
    ],
  },
];

/** Code that runs in production (the composition root, the operator tools) never loads test support. */
const noAppInternalsNorTestSupport = [
  'error',
  {
    patterns: [
      ...noAppInternals[1].patterns,
      {
        group: ['@ca/test-support', '**/libs/test-support/**'],
        message: 'Test support is for the test suites and bench only.',
      },
    ],
  },
];

/**
 * The seam between a context and its tables: SQL runs only in its stores (`*.store.ts`) and
 * migrations, so a handler states what it needs and its unit tests fake a store, never SQL text
 * (a transaction is the database store's too: the statements in it go through stores). An
 * entity (`*.entity.ts`) maps a table's columns for its store's TypeORM calls, as a migration
 * states them.
 * Database suites (`*.int-spec.ts`) still write their fixtures directly. `held`: the apps held
 * to it, or, while an app moves over, a folder of its src/ or one file.
 */
const sqlOnlyInStores = (held) => {
  const pattern = (path) => {
    if (path.endsWith('.ts')) return path;
    return path.includes('/src/') ? `${path}/**/*.ts` : `${path}/src/**/*.ts`;
  };
  return {
    files: held.map(pattern),
    ignores: ['**/*.store.ts', '**/*.entity.ts', '**/src/migrations/**', '**/*.int-spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(query|createQueryBuilder|getRepository|sql)$/]',
          message: 'SQL runs in a store (*.store.ts) or a migration: give the store a method and call that.',
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'typeorm',
              allowTypeImports: true,
              message: 'Only stores use TypeORM; others name its types at most (import type).',
            },
            {
              name: '@ca/messaging',
              importNames: ['applyOnce', 'applyOnceEach', 'recordEvent', 'insertEvents'],
              message: 'The inbox and outbox are written through a store (*.store.ts).',
            },
          ],
        },
      ],
    },
  };
};

module.exports = [
  { ignores: ['**/node_modules', '**/dist', '**/.data', '**/.nx', '**/coverage', 'tmp'] },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    languageOptions: {
      // Type information for the promise rules; each file is checked by its project's tsconfig.
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      // A promise nobody awaits loses its error; `void` it only with a `.catch` that reports.
      '@typescript-eslint/no-floating-promises': 'error',
      '@nx/enforce-module-boundaries': boundaries(),
    },
  },
  {
    // The embedded composition root starts every context in one process (`npm start`): it may
    // import each app's public index (its start function), nothing deeper.
    files: ['apps/embedded/src/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(APP_INDEXES),
      'no-restricted-imports': noAppInternalsNorTestSupport,
    },
  },
  {
    // The system suites (tests/system) start the embedded system or each service through its public
    // index, and reach the few internals each app exposes for tests (`@ca/<app>/testing`).
    files: ['tests/system/src/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries([
        ...APP_INDEXES,
        '@ca/embedded',
        '@ca/gateway/testing',
        '@ca/ocsp-responder/testing',
      ]),
      'no-restricted-imports': noAppInternals,
    },
  },
  {
    // Operator tools run the system from outside: public indexes only (and the gateway's command
    // language on its own, which `npm run ops` parses before it loads anything heavier).
    files: ['tools/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries([...APP_INDEXES, '@ca/embedded', '@ca/gateway/commands']),
      'no-restricted-imports': noAppInternalsNorTestSupport,
    },
  },
  {
    // Benchmarks too, and the micro-benchmarks of one statement or store reach the internals each
    // app exposes for that (`@ca/<app>/testing`), never its src/.
    files: ['bench/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries([
        ...APP_INDEXES,
        '@ca/embedded',
        '@ca/gateway/testing',
        '@ca/issuance/testing',
        '@ca/ocsp-responder/testing',
      ]),
      'no-restricted-imports': noAppInternals,
    },
  },
  {
    // The outsider suites drive the system as a client would, borrowing the system suites' and
    // fault suites' test support (admin-API client, child programs); they import no service code.
    files: ['tests/security/src/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(['@ca/system/testing', '@ca/faults/testing']),
      'no-restricted-imports': noAppInternals,
    },
  },
  {
    // The fault suites start their own processes; the backup suite borrows the system suites'
    // test support (a system on a database, an admin-API client).
    files: ['tests/faults/src/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(['@ca/system/testing']),
      'no-restricted-imports': noAppInternals,
    },
  },
  {
    // The console names the API's answers by the contracts' types; a value import would put the
    // contracts library (class-validator and all) into the browser bundle.
    files: ['apps/console/src/**/*.ts', 'apps/console/src/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@ca/contracts',
              allowTypeImports: true,
              message: 'The console imports types only from @ca/contracts (import type / export type).',
            },
          ],
        },
      ],
    },
  },
  {
    // Contracts are the wire only: no framework, database or bus client and no domain rule, so any
    // service (or client) reads them without pulling those in. The gateway documents them
    // (apps/gateway/src/openapi); libs/domain holds the rules.
    files: ['libs/contracts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*', 'typeorm', 'typeorm/*', 'pg', 'pg/*', 'nats', 'nats/*'],
              message: 'libs/contracts holds wire contracts only: no framework, database or bus client.',
            },
            {
              group: ['@ca/domain', '@ca/domain/*', '**/domain/src', '**/domain/src/**'],
              message: 'libs/contracts may not import the domain rules: libs/domain builds on the contracts.',
            },
          ],
        },
      ],
    },
  },
  sqlOnlyInStores([
    'apps/revocation',
    'apps/acme',
    'apps/webhooks',
    'apps/ocsp-responder',
    'apps/gateway',
    'apps/issuance',
  ]),
  {
    // CommonJS configuration and tool scripts.
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
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
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
