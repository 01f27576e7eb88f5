/** A server's trust posture (docs/design.md, Concepts). */
export const TRUST_LEVELS = ['trusted', 'partial', 'untrusted'] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];
