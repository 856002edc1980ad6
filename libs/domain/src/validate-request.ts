import {
  CaError,
  FieldError,
  IssuancePolicyRequest,
  IssueCertificateV2Request,
  AcmeCertificateWithoutCnRequest,
  RenewCertificateV2Request,
  validateWireDto,
} from '@ca/contracts';
import { csrDeliveryErrors } from './csr.rules';
import { issuancePolicyRequestErrors } from './issuance-policy.rules';
import { v2IssuanceRuleErrors, withoutCommonNameRuleErrors } from './issue-certificate-v2.rules';

type RequestRules = (request: never) => FieldError[];

/** The rules across a request's fields, by DTO class; a subclass without its own has its parent's. */
const REQUEST_RULES = new Map<abstract new () => object, RequestRules>([
  [IssueCertificateV2Request, v2IssuanceRuleErrors],
  [AcmeCertificateWithoutCnRequest, withoutCommonNameRuleErrors],
  [RenewCertificateV2Request, csrDeliveryErrors],
  [IssuancePolicyRequest, issuancePolicyRequestErrors],
]);

function requestRulesOf(type: object): RequestRules | undefined {
  for (let current: object | null = type; current; current = Object.getPrototypeOf(current)) {
    const rules = REQUEST_RULES.get(current as abstract new () => object);
    if (rules) return rules;
  }
  return undefined;
}

/**
 * Validates a request: its wire shape (libs/contracts' class-validator rules, unknown fields
 * refused), then, once those pass, the rules across its fields; one FieldError per failing field.
 * The gateway uses it on request bodies, and the owning service again on commands (defence in
 * depth: a service never trusts its caller to have validated).
 */
export async function validateDto<T extends object>(type: new () => T, value: unknown): Promise<T> {
  const request = await validateWireDto(type, value);
  const errors = (requestRulesOf(type) as ((request: T) => FieldError[]) | undefined)?.(request) ?? [];
  if (errors.length > 0) throw CaError.validation(errors);
  return request;
}
