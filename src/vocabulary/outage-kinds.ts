/**
 * Why a server is not being listed: it could not be reached or answered wrongly
 * (`connection`), or its authorization server refused our tokens and a person must log in
 * again (`auth`, docs/oauth.md): not a change, not a removal.
 */
export const OUTAGE_KINDS = ['connection', 'auth'] as const;
export type OutageKind = (typeof OUTAGE_KINDS)[number];
