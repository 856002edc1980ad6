import { truncateCharacters } from '../text/text-rules';

/**
 * The audit `action` of a request, from its method and route (docs/api.md#audit-log). Derived from the path
 * rather than from the matched handler so that requests refused before routing (a body that does
 * not parse) are named too. audit-action.spec.ts checks that every route of the controllers has one.
 */
const SEGMENT = '[^/]+';
const ACTIONS: { method: string; path: RegExp; action: string }[] = [
  { method: 'POST', path: route('/v1/ca/initialize'), action: 'ca.initialize' },
  { method: 'POST', path: route('/v2/ca/initialize'), action: 'ca.initialize-v2' },
  { method: 'GET', path: route('/v2/ca'), action: 'ca.list' },
  { method: 'POST', path: route('/v2/ca/issuing'), action: 'ca.add-issuing' },
  { method: 'POST', path: route('/v2/ca/root/renew'), action: 'ca.renew-root' },
  { method: 'POST', path: route(`/v2/ca/${SEGMENT}/revoke`), action: 'ca.revoke' },
  {
    method: 'POST',
    path: route(`/v2/ca/${SEGMENT}/cross-certificate/revoke`),
    action: 'ca.revoke-cross-certificate',
  },
  { method: 'PUT', path: route(`/v2/ca/${SEGMENT}/certificate`), action: 'ca.upload-certificate' },
  { method: 'POST', path: route(`/v2/ca/${SEGMENT}/replace-leaves`), action: 'ca.replace-leaves' },
  { method: 'GET', path: route(`/v2/ca/${SEGMENT}/replacement`), action: 'ca.replacement' },
  { method: 'POST', path: route('/v1/certificates'), action: 'certificate.issue' },
  { method: 'GET', path: route('/v1/certificates'), action: 'certificate.list' },
  { method: 'GET', path: route('/v1/certificates/expiring'), action: 'certificate.list-expiring' },
  { method: 'GET', path: route(`/v1/certificates/${SEGMENT}`), action: 'certificate.get' },
  { method: 'POST', path: route(`/v1/certificates/${SEGMENT}/renew`), action: 'certificate.renew' },
  { method: 'POST', path: route(`/v1/certificates/${SEGMENT}/revoke`), action: 'certificate.revoke' },
  { method: 'POST', path: route('/v2/certificates'), action: 'certificate.issue-v2' },
  { method: 'GET', path: route('/v2/certificates'), action: 'certificate.search' },
  { method: 'GET', path: route('/v2/certificates/summary'), action: 'certificate.summary' },
  { method: 'GET', path: route('/v2/certificates/export'), action: 'certificate.export' },
  { method: 'POST', path: route('/v2/certificates/revoke-matching'), action: 'certificate.revoke-matching' },
  { method: 'GET', path: route(`/v2/jobs/${SEGMENT}`), action: 'job.get' },
  { method: 'POST', path: route(`/v2/certificates/${SEGMENT}/renew`), action: 'certificate.renew-v2' },
  {
    method: 'POST',
    path: route(`/v2/certificates/${SEGMENT}/release-hold`),
    action: 'certificate.release-hold',
  },
  { method: 'GET', path: route(`/v1/downloads/${SEGMENT}`), action: 'download.get' },
  { method: 'PUT', path: route('/v2/policy'), action: 'policy.set' },
  { method: 'GET', path: route('/v2/policy'), action: 'policy.get' },
  { method: 'DELETE', path: route('/v2/policy'), action: 'policy.delete' },
  { method: 'POST', path: route('/v2/acme/eab-keys'), action: 'acme.eab-key.create' },
  { method: 'GET', path: route('/v2/acme/eab-keys'), action: 'acme.eab-key.list' },
  { method: 'DELETE', path: route(`/v2/acme/eab-keys/${SEGMENT}`), action: 'acme.eab-key.disable' },
  { method: 'POST', path: route('/v2/webhooks'), action: 'webhook.create' },
  { method: 'GET', path: route('/v2/webhooks'), action: 'webhook.list' },
  { method: 'DELETE', path: route(`/v2/webhooks/${SEGMENT}`), action: 'webhook.delete' },
  { method: 'POST', path: route(`/v2/webhooks/${SEGMENT}/test`), action: 'webhook.test' },
  { method: 'GET', path: route(`/v2/webhooks/${SEGMENT}/deliveries`), action: 'webhook.deliveries' },
  { method: 'GET', path: route('/v2/audit'), action: 'audit.list' },
  { method: 'PUT', path: route(`/v2/acme/profiles/${SEGMENT}`), action: 'acme.profile.put' },
  { method: 'GET', path: route('/v2/acme/profiles'), action: 'acme.profile.list' },
  { method: 'DELETE', path: route(`/v2/acme/profiles/${SEGMENT}`), action: 'acme.profile.delete' },
  // ACME (docs/api.md#acme): the principal is the account that signed the request.
  ...['GET', 'POST'].map((method) => ({
    method,
    path: new RegExp(`^\\/acme\\/${SEGMENT}\\/.+$`, 'i'),
    action: 'acme.request',
  })),
];

/** Express matches case-insensitively and with an optional trailing slash; so does this. */
function route(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/\//g, '\\/')}\\/?$`, 'i');
}

/** `certificate.issue` etc.; `route.unknown` for a path no route answers. */
export function auditActionOf(method: string, path: string): string {
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return ACTIONS.find((a) => a.method === verb && a.path.test(path))?.action ?? 'route.unknown';
}

/** Health probes, the API description and the console's static files are not administrative calls; everything else is audited. */
export function isAuditedPath(path: string): boolean {
  return !/^\/(health(\/|$)|openapi\.json$|docs(\/|-json$|$)|console(\/|$))/i.test(path);
}

/** In characters (code points), never cutting one. */
const MAX_RESOURCE_LENGTH = 512;

/**
 * The `resource` of an entry: the path without the query string, capped; a pre-signed download
 * token in the path is a credential and is never written.
 */
export function auditResourceOf(path: string): string {
  const resource = path.replace(/^(\/v1\/downloads\/)[^/]+/i, '$1{token}');
  return truncateCharacters(resource, MAX_RESOURCE_LENGTH, '…');
}
