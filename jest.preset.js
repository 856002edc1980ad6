// Shared Jest settings for every project. SWC compiles TypeScript (with decorator metadata for
// NestJS) and also turns the ESM-only pkijs/asn1js/jose/oidc-provider packages into CommonJS for Jest's loader.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const esmOnly = [
  'pkijs',
  'asn1js',
  'jose',
  'oidc-provider',
  'pvtsutils',
  'pvutils',
  'bytestreamjs',
  '@noble',
  '@peculiar',
];
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace('*', '(.*)')}$`,
    path.join(__dirname, target.replace('*', '$1')),
  ]),
);

module.exports = {
  // Node's environment; integration suites also fail when they leave a handle open (see the file).
  testEnvironment: path.join(__dirname, 'tools/jest/closing-environment.js'),
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', swc] },
  transformIgnorePatterns: [`node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper,
  testMatch: ['**/?(*.)+(spec|int-spec).ts'],
};
