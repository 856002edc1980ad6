import { loadConfig } from '@ca/config';
import { refuseSettingsOfOwnProcesses } from './one-process-settings';

describe('settings npm start refuses', () => {
  it('refuses OCSP_RESPONDER_WORKERS other than 1 with one line naming it', () => {
    for (const value of ['2', 'auto'])
      expect(() => refuseSettingsOfOwnProcesses(loadConfig({ OCSP_RESPONDER_WORKERS: value }))).toThrow(
        /^OCSP_RESPONDER_WORKERS: applies to the responder run on its own/,
      );
  });

  it('accepts the default and an explicit 1', () => {
    expect(() => refuseSettingsOfOwnProcesses(loadConfig({}))).not.toThrow();
    expect(() => refuseSettingsOfOwnProcesses(loadConfig({ OCSP_RESPONDER_WORKERS: '1' }))).not.toThrow();
  });
});
