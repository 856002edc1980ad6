module.exports = { ...require('../../jest.preset.js'), displayName: 'ocsp-responder', rootDir: __dirname };
