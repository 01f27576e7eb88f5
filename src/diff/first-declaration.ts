import type { RawTool } from '../listings/canonical.js';
import { ownWords } from './contradiction.js';
import type { HintName } from './hints.js';
import { compareSeverity, type Severity } from './severity.js';

/**
 * How plausible a relaxing hint is that a tool declares for the first time (absent before,
 * declared after), judged by what the tool says of itself (docs/design.md §4, first declarations).
 * Vendors adopting annotations declare `read_graph` read-only and local file tools
 * closed-world: that is what their names say, and it is not a rug pull. A hint that the
 * tool's own text contradicts is.
 */
export type Plausibility = 'consistent' | 'contradicted' | 'unsupported';

/** A word list written as one string, so that it reads as a list and not as a column. */
function wordList(list: string): string[] {
  return list.split(' ');
}

/** Word forms that count: base, -s/-es, -ing (no past participles: "lists deleted files"). */
function forms(...bases: string[]): Set<string> {
  const out = new Set<string>();
  for (const base of bases) {
    out.add(base);
    out.add(
      /(s|sh|ch|x|z|o)$/.test(base)
        ? `${base}es`
        : /[^aeiou]y$/.test(base)
          ? `${base.slice(0, -1)}ies`
          : `${base}s`,
    );
    out.add(base.endsWith('e') && !base.endsWith('ee') ? `${base.slice(0, -1)}ing` : `${base}ing`);
  }
  return out;
}

/** A tool that says it reads, lists or looks. */
const READS = forms(
  ...wordList(
    'read get list search find query show view describe inspect lookup look count fetch ' +
      'retrieve open browse explore check status info stat tree echo peek preview validate ' +
      'verify analyze analyse compare diff sum calculate compute snapshot screenshot ' +
      'capture wait resolve return lint explain summarize download scrape crawl extract',
  ),
);
/** Words in a tool's name that say it changes something (broad: names are terse). */
const NAME_WRITES = forms(
  ...wordList(
    'create edit update modify set insert add append move rename upload post close click ' +
      'type press fill install uninstall run start stop restart toggle enable disable save ' +
      'commit push publish submit apply change replace patch reset clear drag select resize ' +
      'launch deploy schedule book order buy purchase cancel approve reject merge assign ' +
      'invite archive lock unlock grant navigate emulate write delete remove drop kill send ' +
      'execute exec rm del tap swipe scroll hover terminate reboot',
  ),
);
/** Verbs in a description that say the tool changes something (narrower: prose is wordy). */
const PROSE_WRITES = forms(
  ...wordList(
    'create edit update modify insert append move rename upload close click press fill ' +
      'install uninstall restart toggle save commit push publish submit replace patch ' +
      'launch deploy navigate write',
  ),
);
/** What only a destructive tool does: its own text saying so contradicts destructiveHint false. */
const DESTROYS = forms(
  ...wordList(
    'delete drop wipe purge remove overwrite destroy truncate erase revoke unlink kill rm ' +
      'del format reset',
  ),
);
/** What a non-destructive tool plausibly does: add, make, start. */
const ADDITIVE = forms(
  ...wordList(
    'create add append insert make copy duplicate generate compress convert render toggle ' +
      'enable subscribe start open launch new simulate trigger',
  ),
);
/** What an idempotent call plausibly does: put a thing in a state. */
const IDEMPOTENT = forms(
  ...wordList(
    'set put upsert ensure write overwrite replace delete remove update resize close ' +
      'navigate configure mark assign',
  ),
);
/** ...and what repeats its effect on every call. */
const REPEATING = forms(
  ...wordList(
    'append add increment send submit toggle push pay transfer insert enqueue publish ' +
      'charge order buy purchase post',
  ),
);
/** Actions that reach outside by what they are: a closed world is no reading of them. */
const OPEN_ACTIONS = forms(
  ...wordList('fetch download upload browse navigate crawl scrape email send post publish tweet'),
);
/** A local, closed world: files, a graph, a thought. */
const LOCAL = new Set(
  wordList(
    'file files directory directories folder folders path paths disk local locally graph ' +
      'knowledge memory entity entities node nodes relation relations observation ' +
      'observations thought thoughts thinking sum echo number numbers environment logging ' +
      'filesystem',
  ),
);
/** ...and the open one. */
const REMOTE = new Set(
  wordList(
    'url urls http https web website websites internet network remote online browser ' +
      'download downloads email emails api apis cloud github webhook webhooks page pages ' +
      'external',
  ),
);

/** Words that may come before the verb of a clause: "this tool will create…". */
const LEADING = new Set(
  wordList(
    'this tool it will can also to you may that which then the function allows lets helps ' +
      'used use be is a an simply just first optionally automatically please',
  ),
);

/**
 * The verb each clause of a description starts with ("Creates a file, or overwrites it"):
 * tool descriptions say what the tool does that way, while a word further in is as likely
 * a noun ("with progress updates"). Negated clauses and identifiers are skipped.
 */
function leadingVerbs(description: string): string[] {
  const verbs: string[] = [];
  for (const segment of description.split(/[.;:!?,\n()]|\b(?:and|or|then|but)\b/i)) {
    const words = ownWords(segment, 'prose');
    const first = words.find((w) => !LEADING.has(w.word));
    if (first !== undefined && !first.negated && !/^(?:not|never|no|without)$/.test(first.word)) {
      verbs.push(first.word);
    }
  }
  return verbs;
}

function words(tool: RawTool): { name: string[]; prose: string[]; leading: string[] } {
  const name = ownWords(tool.name, 'name')
    .filter((w) => !w.negated)
    .map((w) => w.word);
  const description = typeof tool['description'] === 'string' ? tool['description'] : '';
  const prose = ownWords(description, 'prose')
    .filter((w) => !w.negated)
    .map((w) => w.word);
  return { name, prose, leading: leadingVerbs(description) };
}

function has(set: ReadonlySet<string>, list: readonly string[]): string | null {
  return list.find((word) => set.has(word)) ?? null;
}

/** Every word that names an action: where a tool's name starts saying what it does. */
const ACTIONS: ReadonlySet<string> = new Set([
  ...READS,
  ...NAME_WRITES,
  ...DESTROYS,
  ...ADDITIVE,
  ...IDEMPOTENT,
  ...REPEATING,
  ...OPEN_ACTIONS,
]);

/**
 * What the tool does: the first action word of its name, with those joined to it by "or" or
 * "and" (`create_or_update_file`), after any namespace (`browser_close`, `mobile_list_apps`).
 * The words after it are its object: `get_commit` reads, "commit" is what it reads. A name
 * without an action word leaves the leading verb of the description's first clause.
 */
export function actionOf(tool: RawTool): { words: string[]; from: 'name' | 'description' } {
  const { name, leading } = words(tool);
  const start = name.findIndex((word) => ACTIONS.has(word));
  if (start >= 0) {
    const action = [name[start]!];
    for (let i = start + 1; i + 1 < name.length; i += 2) {
      if ((name[i] !== 'or' && name[i] !== 'and') || !ACTIONS.has(name[i + 1]!)) break;
      action.push(name[i + 1]!);
    }
    return { words: action, from: 'name' };
  }
  const first = leading[0];
  return { words: first !== undefined && ACTIONS.has(first) ? [first] : [], from: 'description' };
}

/**
 * Whether the tool's own name and description support, contradict or say nothing of `hint`.
 * Only the tool's action can contradict a hint: a word of its object cannot ("commit" in
 * `get_commit`, "url" in a tool that returns one).
 */
export function plausibility(
  hint: HintName,
  tool: RawTool,
): { verdict: Plausibility; word: string | null } {
  const action = actionOf(tool);
  const writes = action.from === 'name' ? NAME_WRITES : PROSE_WRITES;
  const verdict = (
    contradicts: string | null,
    supports: string | null,
  ): { verdict: Plausibility; word: string | null } => {
    if (contradicts !== null) return { verdict: 'contradicted', word: contradicts };
    if (supports !== null) return { verdict: 'consistent', word: supports };
    return { verdict: 'unsupported', word: null };
  };
  switch (hint) {
    case 'readOnlyHint':
      return verdict(
        has(writes, action.words) ?? has(DESTROYS, action.words),
        has(READS, action.words),
      );
    case 'destructiveHint':
      return verdict(
        has(DESTROYS, action.words),
        has(ADDITIVE, action.words) ?? has(READS, action.words),
      );
    case 'idempotentHint':
      return verdict(
        has(REPEATING, action.words),
        has(IDEMPOTENT, action.words) ?? has(READS, action.words),
      );
    case 'openWorldHint': {
      // A remote word in the object ("returns the page URL") is no contradiction, but it
      // does keep local words from supporting a closed world.
      const { name, prose } = words(tool);
      const all = [...name, ...prose];
      const description = typeof tool['description'] === 'string' ? tool['description'] : '';
      const remote = has(REMOTE, all) !== null || /\bhttps?:\/\//.test(description);
      return verdict(has(OPEN_ACTIONS, action.words), remote ? null : has(LOCAL, all));
    }
  }
}

const LOWER: Readonly<Record<Severity, Severity>> = {
  critical: 'high',
  high: 'medium',
  medium: 'low',
  low: 'info',
  info: 'info',
};

/**
 * The severity of a relaxing first declaration: `low` when the tool's text supports it,
 * `critical` when it contradicts it, else one level below the table. In a release that
 * declares hints on most of the server's tools at once (a vendor adopting annotations), an
 * unsupported one is at most `medium`, and `low` for openWorldHint.
 */
export function gradeFirstDeclaration(
  hint: HintName,
  table: Severity,
  tool: RawTool,
  adoption: boolean,
): { base: Severity; basis: string } {
  const { verdict, word } = plausibility(hint, tool);
  const quotedWord = word === null ? '' : ` ("${word}")`;
  switch (verdict) {
    case 'consistent':
      return {
        base: 'low',
        basis: `a first declaration that the tool's own name and description support${quotedWord}: lowered from ${table}`,
      };
    case 'contradicted':
      return {
        base: 'critical',
        basis: `a first declaration that the tool's own name or description contradicts${quotedWord}`,
      };
    case 'unsupported': {
      const lower = LOWER[table];
      if (!adoption) {
        return {
          base: lower,
          basis: `a first declaration that the tool's own text neither supports nor contradicts: one level below ${table}`,
        };
      }
      const adopted = hint === 'openWorldHint' ? 'low' : lower === 'high' ? 'medium' : lower;
      return {
        base: adopted,
        basis: `a first declaration, in a release that declares hints on most of the server's tools at once (a vendor adopting annotations): lowered from ${table}`,
      };
    }
  }
}

/**
 * The severity of a relaxing flip of a declared value (false to true, or the reverse), or
 * null to keep the table's. A vendor correcting its label declares a `list_…` or `get_…`
 * tool read-only after `false`: `medium` when the tool's unchanged name and description
 * support the new value. For destructiveHint only a tool whose action reads is supported: a
 * tool that acts (creates, taps, clicks, installs) stays at the table, since hosts stop
 * confirming it. A contradicted or unsupported flip, or one whose tool was renamed or
 * redescribed in the same change, keeps the table.
 */
export function gradeDeclaredFlip(
  hint: HintName,
  table: Severity,
  before: RawTool,
  after: RawTool,
): { base: Severity; basis: string } | null {
  if (compareSeverity(table, 'medium') <= 0) return null;
  if (before.name !== after.name || before['description'] !== after['description']) return null;
  const { verdict, word } = plausibility(hint, after);
  if (verdict !== 'consistent') return null;
  if (hint === 'destructiveHint' && has(READS, actionOf(after).words) === null) return null;
  return {
    base: 'medium',
    basis: `a declared value corrected to what the tool's unchanged name and description support ("${word ?? ''}"): lowered from ${table}`,
  };
}
