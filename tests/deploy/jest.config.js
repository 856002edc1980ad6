module.exports = { ...require('../../jest.preset.js'), displayName: 'deploy-check', rootDir: __dirname };
