module.exports = { ...require('../../jest.preset.js'), displayName: 'operations', rootDir: __dirname };
