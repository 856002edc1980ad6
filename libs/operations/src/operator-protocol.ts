/**
 * The wire of the operator endpoint (docs/operations.md): what the running process writes to
 * DATA_DIR and what the CLI and the endpoint exchange. Transport only: the commands are the
 * contexts' own (the gateway's tenant and audit commands, issuance's custody, the dead letters).
 */

/** Written into DATA_DIR while the embedded system runs: where its operator endpoint listens. */
export const OPERATOR_ENDPOINT_FILE = 'ops.json';
export const OPERATOR_ENDPOINT_PATH = '/v1/ops';

/** Contents of DATA_DIR/ops.json (mode 0600). */
export interface OperatorEndpointInfo {
  url: string;
  /** Bearer secret of the endpoint: whoever can read the file may run operator commands. */
  secret: string;
  pid: number;
}

/** One frame of the endpoint's answer, a JSON object per line. */
export type OperatorFrame = { out: string } | { err: string } | { exit: number };

/** Where a command's lines go: standard output/error, or frames of the operator endpoint. */
export interface OpsOutput {
  out(line: string): void | Promise<void>;
  err(line: string): void | Promise<void>;
}

/** Runs one operator command line (`npm run ops -- <args…>`) and returns its exit code. */
export type OperatorCommand = (args: readonly string[], io: OpsOutput) => Promise<number>;

/** Bad arguments: one line to standard error, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
