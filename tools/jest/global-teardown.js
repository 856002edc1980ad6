// After the last suite of a whole `npm test` run (the root Jest config).
const { existsSync, readdirSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const reportOpenResources = require('./report-open-resources');

module.exports = async (globalConfig) => {
  // The initialised embedded database the suites copied (libs/persistence/src/testing/embedded-data-dir.ts).
  const tmp = join(__dirname, '../../tmp');
  for (const name of existsSync(tmp) ? readdirSync(tmp, { withFileTypes: true }) : []) {
    if (name.isDirectory() && name.name.startsWith('pglite-template-')) {
      rmSync(join(tmp, name.name), { recursive: true, force: true });
    }
  }
  await reportOpenResources(globalConfig);
};
