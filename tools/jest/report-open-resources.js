// After the last suite: what still keeps the process alive (with the integration run in band, the
// suites ran in this process). Jest then cannot exit; tools/test.js stops it, and this line says
// what to look for (the suites' own leak checks name the suite).
const IGNORED = new Set(['TTYWrap', 'FSReqCallback', 'FSReqPromise', 'PipeWrap']);

module.exports = async (globalConfig) => {
  // With worker processes, Jest's own workers are still running when this is called.
  const inWorkers = globalConfig && globalConfig.maxWorkers > 1 && !process.argv.includes('--runInBand');
  const open = process
    .getActiveResourcesInfo()
    .filter((type) => !IGNORED.has(type) && !(inWorkers && type === 'ProcessWrap'));
  if (open.length > 0) process.stderr.write(`\nStill open after the last suite: ${open.join(', ')}\n`);
};
