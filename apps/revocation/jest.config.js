module.exports = { ...require('../../jest.preset.js'), displayName: 'revocation', rootDir: __dirname };
