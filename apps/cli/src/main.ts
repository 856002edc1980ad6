// `npm run cli -- <command>`: the administrative API for people, in the style of the step CLI.
import { runCli } from './run-cli';

runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
