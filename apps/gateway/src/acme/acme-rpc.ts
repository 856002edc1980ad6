/** The injection token of the acme context's RPC client (EAB keys and profiles; the ACME edge gets it directly). */
export const ACME_RPC = Symbol('ACME_RPC');
