/** What the gateway does with a tool that changed since approval (docs/gateway.md, Policies). */
export const GATEWAY_POLICIES = ['pin', 'quarantine'] as const;
export type GatewayPolicy = (typeof GATEWAY_POLICIES)[number];

/** What the gateway did with one tool or one call; counted in metrics and logged at debug. */
export const GATEWAY_DECISIONS = ['forwarded', 'refused', 'withheld'] as const;
export type GatewayDecision = (typeof GATEWAY_DECISIONS)[number];

/** Why a call to a changed tool was refused under `pin` (docs/gateway.md, Policies). */
export const REFUSAL_REASONS = ['relaxation', 'content'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];
