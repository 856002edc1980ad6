module.exports = { ...require('../../jest.preset.js'), displayName: 'net-safety', rootDir: __dirname };
