module.exports = { ...require('../../jest.preset.js'), displayName: 'security', rootDir: __dirname };
