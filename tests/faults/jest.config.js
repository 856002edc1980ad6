module.exports = { ...require('../../jest.preset.js'), displayName: 'faults', rootDir: __dirname };
