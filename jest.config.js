// `npm test` runs every project's suites in one Jest run; `nx test <project>` runs one project.
module.exports = {
  // Longest suites first, by the durations CI measured (a fresh clone has no Jest cache to go by).
  testSequencer: '<rootDir>/tools/jest/duration-sequencer.js',
  globalTeardown: '<rootDir>/tools/jest/global-teardown.js',
  projects: [
    '<rootDir>/apps/*/jest.config.js',
    '<rootDir>/libs/*/jest.config.js',
    '<rootDir>/tests/*/jest.config.js',
  ],
};
