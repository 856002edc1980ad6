module.exports = { ...require('../../jest.preset.js'), displayName: 'problem', rootDir: __dirname };
