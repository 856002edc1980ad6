/** A missing or malformed setting: the service stops at start with this one line. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}
