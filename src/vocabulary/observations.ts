/** What started an observation. */
export const TRIGGERS = ['poll', 'notification', 'startup', 'manual'] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** Whether an observation got a complete listing. */
export const OUTCOMES = ['ok', 'error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The two protocol eras the MCP SDKs speak; learned on first connect. */
export const PROTOCOL_ERAS = ['2025', '2026'] as const;
export type ProtocolEra = (typeof PROTOCOL_ERAS)[number];
