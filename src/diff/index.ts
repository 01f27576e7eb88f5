export { checkFirstListing, diffListings, type ListingInput } from './diff-listings.js';
export { MAIN_IDENTITY, type IdentityListing } from './client-dependence.js';
export {
  CONTENT_KINDS,
  FINDING_CATALOGUE,
  FINDING_KINDS,
  baseSeverity,
  kindEntry,
  type ContentSummary,
  type HeadlineInput,
  type KindEntry,
} from './catalogue.js';
export { CONTENT_RULES, type ContentRule, type InjectionFamily } from './content-rules.js';
export type { ContentRecord } from './content-checks.js';
export { normalizeForMatching } from './normalize.js';
export { toolKey } from './shadowing.js';
export { hiddenRuns, visibleText, type HiddenClass } from '../text/visible-text.js';
export { formatFindingsText } from './format-text.js';
export { sanitizeForTerminal } from '../text/terminal-text.js';
export {
  HINTS,
  HINT_DEFAULTS,
  declaredText,
  readPosture,
  postureKey,
  type DeclaredHint,
  type HintName,
  type HintReading,
  type Posture,
} from './hints.js';
export { actionVerbs, contradictionEvidence, type ContradictionEvidence } from './contradiction.js';
export { matchRenames, renameKey, type Rename } from './rename.js';
export { controlFor, trustImplication } from './record.js';
export {
  SEVERITIES,
  changeSeverity,
  compareSeverity,
  escalate,
  isSeverity,
  maxSeverity,
  severityAtLeast,
  type ChangeSeverity,
  type Severity,
} from './severity.js';
export {
  TRUST_LEVELS,
  type ControlAction,
  type DeliveryContext,
  type DiffContext,
  type DiffResult,
  type Finding,
  type FindingKind,
  type HintRecord,
  type HistoryListing,
  type InterpretationRecord,
  type ListingObservation,
  type ListingRef,
  type TrustLevel,
} from './types.js';
