/** Who set a baseline: the first listing ever seen, or an operator's approval. */
export const APPROVERS = ['first-listing', 'operator'] as const;
export type Approver = (typeof APPROVERS)[number];

/** Where an operator's action came from. */
export const ACTION_SOURCES = ['console', 'api', 'cli'] as const;
export type ActionSource = (typeof ACTION_SOURCES)[number];

/** The operator actions kept in the audit trail. */
export const OPERATOR_ACTIONS = [
  'baseline.approve',
  'alert.ack',
  'alert.retry',
  'server.enable',
  'server.disable',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];
