module.exports = { ...require('../../jest.preset.js'), displayName: 'acme', rootDir: __dirname };
