// `npm test` runs every project's suites in one Jest run; `nx test <project>` runs one project.
module.exports = {
  globalTeardown: '<rootDir>/tools/jest/global-teardown.js',
  projects: [
    '<rootDir>/apps/*/jest.config.js',
    '<rootDir>/libs/*/jest.config.js',
    '<rootDir>/tests/*/jest.config.js',
  ],
};
