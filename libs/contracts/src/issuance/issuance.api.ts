import { InitializeCaCommand, InitializeCaResult } from './initialize-ca.dto';
import { IssuancePattern } from './issuance.patterns';

/** Request and reply type of every pattern the issuance context answers (for a typed RpcClient). */
export type IssuanceApi = {
  [IssuancePattern.InitializeCa]: [InitializeCaCommand, InitializeCaResult];
};
