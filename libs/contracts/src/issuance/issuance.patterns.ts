/** Request/reply subjects answered by the issuance context: `<context>.<aggregate>.<verb>`. */
export const IssuancePattern = {
  InitializeCa: 'issuance.ca.initialize',
} as const;

export type IssuancePattern = (typeof IssuancePattern)[keyof typeof IssuancePattern];
