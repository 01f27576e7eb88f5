import type { RawTool } from '../listings/canonical.js';
import { contradictionEvidence, ownWords } from './contradiction.js';
import type { HintName } from './hints.js';
import type { Severity } from './severity.js';

/**
 * How plausible a relaxing hint is that a tool declares for the first time (absent before,
 * declared after), judged by what the tool says of itself (design §4, first declarations).
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
      'capture wait resolve return lint explain summarize download',
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
      'execute exec rm del',
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

/** Whether the tool's own name and description support, contradict or say nothing of `hint`. */
export function plausibility(
  hint: HintName,
  tool: RawTool,
): { verdict: Plausibility; word: string | null } {
  const { name, prose, leading } = words(tool);
  const all = [...name, ...prose];
  const firstWords = [...name.slice(0, 1), ...leading.slice(0, 1)];
  switch (hint) {
    case 'readOnlyHint': {
      const evidence = contradictionEvidence(tool);
      const write =
        has(NAME_WRITES, name) ??
        has(PROSE_WRITES, leading) ??
        (evidence === null ? null : (evidence.name[0] ?? evidence.description[0] ?? null));
      if (write !== null) return { verdict: 'contradicted', word: write };
      const read = has(READS, firstWords) ?? has(READS, name);
      return read === null
        ? { verdict: 'unsupported', word: null }
        : { verdict: 'consistent', word: read };
    }
    case 'destructiveHint': {
      const destroys = has(DESTROYS, all);
      if (destroys !== null) return { verdict: 'contradicted', word: destroys };
      const additive = has(ADDITIVE, firstWords) ?? has(ADDITIVE, name) ?? has(READS, firstWords);
      return additive === null
        ? { verdict: 'unsupported', word: null }
        : { verdict: 'consistent', word: additive };
    }
    case 'idempotentHint': {
      const repeating = has(REPEATING, leading) ?? has(REPEATING, name);
      if (repeating !== null) return { verdict: 'contradicted', word: repeating };
      const idempotent =
        has(IDEMPOTENT, leading) ?? has(IDEMPOTENT, name) ?? has(READS, firstWords);
      return idempotent === null
        ? { verdict: 'unsupported', word: null }
        : { verdict: 'consistent', word: idempotent };
    }
    case 'openWorldHint': {
      const description = typeof tool['description'] === 'string' ? tool['description'] : '';
      const remote = has(REMOTE, all) ?? (/\bhttps?:\/\//.test(description) ? 'a URL' : null);
      if (remote !== null) return { verdict: 'contradicted', word: remote };
      const local = has(LOCAL, all);
      return local === null
        ? { verdict: 'unsupported', word: null }
        : { verdict: 'consistent', word: local };
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
