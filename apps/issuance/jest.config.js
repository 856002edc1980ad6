module.exports = { ...require('../../jest.preset.js'), displayName: 'issuance', rootDir: __dirname };
