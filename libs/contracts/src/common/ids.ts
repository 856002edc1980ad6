declare const uuidBrand: unique symbol;
declare const tenantIdBrand: unique symbol;

/**
 * A UUID as this system keeps it: checked and lower-cased once, where it comes in (a path, a token,
 * a message), so nothing downstream compares or lower-cases it again. Only `parseUuid` makes one.
 */
export type Uuid = string & { readonly [uuidBrand]: true };

/** A tenant's id: a Uuid from a token's tenantId claim, an ACME path or a message. Only `parseTenantId` makes one. */
export type TenantId = Uuid & { readonly [tenantIdBrand]: true };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in its text form (RFC 9562 4), in either case. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** `value` lower-cased as a Uuid, or undefined when it is no UUID. */
export function parseUuid(value: unknown): Uuid | undefined {
  return isUuid(value) ? (value.toLowerCase() as Uuid) : undefined;
}

/** `value` lower-cased as a TenantId, or undefined when it is no UUID. */
export function parseTenantId(value: unknown): TenantId | undefined {
  return parseUuid(value) as TenantId | undefined;
}
