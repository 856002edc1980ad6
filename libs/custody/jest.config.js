module.exports = { ...require('../../jest.preset.js'), displayName: 'custody', rootDir: __dirname };
