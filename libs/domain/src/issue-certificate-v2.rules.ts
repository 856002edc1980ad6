import {
  CertificateUsage,
  countCharacters,
  FieldError,
  IssueCertificateV2Request,
  MAX_CUSTOM_EXTENSION_TEXT,
  MAX_CUSTOM_EXTENSIONS,
  MAX_SANS,
} from '@ca/contracts';
import { csrDeliveryErrors } from './csr.rules';
import { dnsNameProblem, looksLikeHostName } from './dns-name.rules';
import { serverValidityErrors } from './validity.rules';

/**
 * The rules of docs/api.md#issue-a-certificate-v2 that span fields or entries, one FieldError per offending field or entry
 * (run after the per-field class-validator rules have passed).
 */
export function v2IssuanceRuleErrors(request: IssueCertificateV2Request): FieldError[] {
  const errors: FieldError[] = [];
  const usage = request.usage ?? CertificateUsage.Client;
  const serverUsage = usage !== CertificateUsage.Client;
  const names = request.subjectAlternativeNames ?? [];
  if (serverUsage && names.length === 0) {
    errors.push({
      field: 'subjectAlternativeNames',
      message: `at least one DNS name is required for usage ${usage}`,
    });
  }
  const seen = new Set<string>();
  names.forEach((name, index) => {
    const field = `subjectAlternativeNames[${index}]`;
    const problem = dnsNameProblem(name);
    if (problem) errors.push({ field, message: `"${name}" ${problem}` });
    else if (seen.has(name.toLowerCase())) errors.push({ field, message: `"${name}" is listed twice` });
    seen.add(name.toLowerCase());
  });
  if (serverUsage) errors.push(...serverCommonNameErrors(request.commonName, names));
  errors.push(...serverValidityErrors(usage, request.validityDays));
  if (request.mustStaple === true && !serverUsage) {
    errors.push({ field: 'mustStaple', message: 'applies only to usage Server or ClientAndServer' });
  }
  errors.push(...customExtensionErrors(request.customExtensions));
  errors.push(...csrDeliveryErrors(request));
  return errors;
}

/**
 * A server certificate's CN written like a host name becomes one of its DNS SANs (CA/B BR 7.1.4.3:
 * the CN is one of the SAN values; issuance adds it, lower-cased, when it is missing), so it must
 * pass the SAN rules and fit into the list.
 */
function serverCommonNameErrors(commonName: string, names: readonly string[]): FieldError[] {
  if (typeof commonName !== 'string' || !looksLikeHostName(commonName)) return [];
  const problem = dnsNameProblem(commonName);
  if (problem) return [{ field: 'commonName', message: `"${commonName}" ${problem}` }];
  const listed = names.some((name) => name.toLowerCase() === commonName.toLowerCase());
  if (!listed && names.length >= MAX_SANS) {
    return [
      {
        field: 'commonName',
        message: `must be one of subjectAlternativeNames: a host-name CN is added to them, and they already hold ${MAX_SANS} names`,
      },
    ];
  }
  return [];
}

function customExtensionErrors(extensions: Record<string, unknown> | undefined): FieldError[] {
  if (extensions === undefined) return [];
  const entries = Object.entries(extensions);
  const errors: FieldError[] = [];
  if (entries.length > MAX_CUSTOM_EXTENSIONS) {
    errors.push({ field: 'customExtensions', message: `at most ${MAX_CUSTOM_EXTENSIONS} entries` });
  }
  for (const [key, value] of entries) {
    const field = `customExtensions.${key}`;
    if (key.length === 0 || countCharacters(key) > MAX_CUSTOM_EXTENSION_TEXT) {
      errors.push({
        field: 'customExtensions',
        message: `keys must be 1 to ${MAX_CUSTOM_EXTENSION_TEXT} characters`,
      });
    }
    if (typeof value !== 'string') errors.push({ field, message: 'values must be strings' });
    else if (countCharacters(value) > MAX_CUSTOM_EXTENSION_TEXT) {
      errors.push({ field, message: `values must be at most ${MAX_CUSTOM_EXTENSION_TEXT} characters` });
    }
  }
  return errors;
}

/**
 * An AcmeCertificateWithoutCnRequest (acme's, docs/api.md#acme-certificate-profile): the v2 rules,
 * and a certificate named by its SANs alone must be for a server.
 */
export function withoutCommonNameRuleErrors(request: IssueCertificateV2Request): FieldError[] {
  const errors = v2IssuanceRuleErrors(request);
  if ((request.usage ?? CertificateUsage.Client) === CertificateUsage.Client) {
    errors.push({
      field: 'usage',
      message: 'a certificate without CN must be for Server or ClientAndServer',
    });
  }
  return errors;
}
