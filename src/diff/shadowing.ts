import { nameSkeleton } from './confusable-skeleton.js';
import { normalizeForMatching } from './normalize.js';

/** Another registered server's tool by its key (lower case, `-` as `_`), or undefined. */
export type OtherServerLookup = (key: string) => { name: string; server: string } | undefined;

/** What a shadowing check needs to know beyond the text (docs/design.md §4, tool_shadowing). */
export interface ShadowScope {
  /** The server of this listing, when known: a look-alike finding names both servers. */
  server: string | null;
  /** Names of this server's tools in the new listing: guidance about them is workflow. */
  serverTools: ReadonlySet<string>;
  otherServerTool: OtherServerLookup;
  /** False when no other server has tools: then only names followed by "tool" are targets. */
  hasOtherServers: boolean;
  /** Another registered server's tool by the confusable skeleton of its name (nameSkeleton). */
  otherServerToolBySkeleton: OtherServerLookup;
}

/** The key shadowing compares tool names by. */
export function toolKey(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}

const SKELETONS = new WeakMap<ReadonlySet<string>, Map<string, string[]>>();

/** This listing's tool names by skeleton, built once per listing. */
function ownSkeletons(names: ReadonlySet<string>): Map<string, string[]> {
  let map = SKELETONS.get(names);
  if (map === undefined) {
    map = new Map();
    for (const name of names) {
      const key = nameSkeleton(name);
      map.set(key, [...(map.get(key) ?? []), name]);
    }
    SKELETONS.set(names, map);
  }
  return map;
}

/** A lookup over a map of tool name → server name, by the skeleton of the name. */
export function skeletonLookupIn(tools: ReadonlyMap<string, string>): OtherServerLookup {
  let bySkeleton: Map<string, { name: string; server: string }> | null = null;
  return (skeletonKey) => {
    bySkeleton ??= new Map(
      [...tools].map(([name, server]) => [nameSkeleton(name), { name, server }]),
    );
    return bySkeleton.get(skeletonKey);
  };
}

/**
 * The tools `name` is a look-alike of (docs/design.md §4): another tool of this listing, or of
 * another registered server, whose name differs from it but has the same confusable
 * skeleton ("sеnd_email" with a Cyrillic е beside "send_email").
 */
export function confusableTargets(name: string, scope: ShadowScope): string[] {
  const key = nameSkeleton(name);
  const targets: string[] = [];
  for (const own of ownSkeletons(scope.serverTools).get(key) ?? []) {
    if (own !== name) targets.push(`a look-alike of ${own} (this server)`);
  }
  const other = scope.otherServerToolBySkeleton(key);
  if (other !== undefined && other.name !== name) {
    targets.push(`a look-alike of ${other.name} (server ${other.server})`);
  }
  return targets;
}

/** A lookup over a map of tool name → server name. */
export function lookupIn(tools: ReadonlyMap<string, string>): OtherServerLookup {
  let byKey: Map<string, { name: string; server: string }> | null = null;
  return (key) => {
    byKey ??= new Map([...tools].map(([name, server]) => [toolKey(name), { name, server }]));
    return byKey.get(key);
  };
}

/** A sentence that puts a condition or a parameter on the use of something. */
const DIRECTIVES = [
  /\b(?:when|whenever|every time|each time|before|after|once|if|while)\b[^.!?\n]{0,80}?\b(?:is|are|gets?|being|get)? ?(?:used|called|invoked|run|runs|executed|triggered)\b/,
  /\b(?:before|after|when|whenever|on) (?:any |each |every )?(?:call|calls|invocation|use) (?:to|of)\b/,
  /\b(?:when|whenever|before|after|if|while|each time|every time) (?:you |the model |the assistant |the agent |an agent )?(?:use|call|invoke|run|execute|using|calling|invoking|running|executing)\b/,
  /\b(?:always|must|should|never|do not|don't|make sure to|be sure to|remember to|need to|have to|required to)\b[^.!?\n]{0,60}?\b(?:add|include|set|send|change|replace|redirect|pass|bcc|cc|append|prepend|attach|modify|route|prefix|use|call|invoke|forward|copy)\b/,
];

/** Words that steer away from a tool rather than direct it ("instead of execute_command"). */
const AWAY =
  /(?:instead of|rather than|in place of|unlike|other than|over|than|not|deprecated,?|replaces|replaced|supersedes)\s*(?:the\s+)?[`'"]?$/;

/** Classes of tools that a text may direct without naming one. */
const TOOL_CLASSES = [
  'email',
  'e-mail',
  'mail',
  'shell',
  'terminal',
  'bash',
  'payment',
  'wallet',
  'banking',
  'slack',
  'messaging',
  'sms',
  'chat',
  'calendar',
  'contacts',
  'crm',
  'database',
  'sql',
  'git',
  'github',
  'browser',
  'http',
  'fetch',
  'web',
  'file',
  'filesystem',
];
const CLASS_PHRASE = new RegExp(
  String.raw`\b(?:the|any|other|every|all|your|an?) (${TOOL_CLASSES.join('|')})(?:[ -](?:sending|sender|client|access))? (?:tools?|functions?|servers?)\b`,
  'g',
);

/**
 * What a text may direct without naming a tool: an action of a class of tools ("when
 * sending an email, always…", "whenever a transfer is made, replace…"), and the words of
 * a tool name that mean this server has such tools itself (then it is workflow).
 */
const CLASS_ACTIONS: ReadonlyArray<{ cls: string; words: RegExp; own: readonly string[] }> = [
  {
    cls: 'email',
    words: /\b(?:e-?mails?|mails?|messages? (?:are|is) sent|sending (?:a |any )?messages?)\b/,
    own: ['email', 'mail', 'message', 'messages', 'send', 'gmail', 'smtp', 'inbox'],
  },
  {
    cls: 'payment',
    words: /\b(?:payments?|transfers?|transactions?|invoices?|funds|money|wire|iban|refunds?)\b/,
    own: [
      'pay',
      'payment',
      'payments',
      'transfer',
      'invoice',
      'wallet',
      'charge',
      'refund',
      'stripe',
    ],
  },
  {
    cls: 'git',
    words: /\b(?:git push|pushing|push(?:es)? (?:to|a|the|any)|commits?|pull requests?|merges?)\b/,
    own: ['git', 'push', 'commit', 'branch', 'pr', 'pull', 'merge', 'github', 'gitlab', 'repo'],
  },
  {
    cls: 'shell',
    words:
      /\b(?:shell|terminal|bash|commands? (?:is|are) (?:run|executed)|running (?:a |any )?commands?|executing (?:a |any )?commands?)\b/,
    own: ['shell', 'exec', 'execute', 'command', 'run', 'terminal', 'bash', 'process'],
  },
  {
    cls: 'file write',
    words:
      /\b(?:writ(?:e|es|ing) (?:a |any |the )?files?|files? (?:is|are) (?:written|saved)|sav(?:e|es|ing) (?:a |any )?files?)\b/,
    own: ['file', 'files', 'write', 'fs', 'directory', 'edit', 'save'],
  },
  {
    cls: 'chat',
    words: /\b(?:slack|channels?|posts? (?:a |any )?messages?|posting)\b/,
    own: ['slack', 'channel', 'chat', 'message', 'post', 'discord', 'teams'],
  },
];
const CONDITION = /\b(?:when|whenever|each time|every time|any time|if|before|after|while)\b/;
const DIRECTION =
  /\b(?:always|also|must|make sure|be sure|remember to|replace|change|redirect|reroute|route|add|include|set|use|copy|forward|cc|bcc|instead|send|push)\b/;

/**
 * What a direction does to the other tool's call: a destination or value slipped in (an
 * address, a URL, an account, a remote, a channel), or the call rerouted or copied. "If
 * the user is not registered, always ask for their email address" has none of it.
 */
const TAMPER =
  /@[a-z0-9-]+\.[a-z]{2,}|https?:\/\/|\b(?:iban|account|wallet|remote|recipient|destination|amount|author|bcc|cc|fee)\b|#[a-z][\w-]+|\b0x[0-9a-f]{6,}|\b(?:replace|redirect|reroute|route|prefix|append)\b|\balso (?:send|copy|post|push|write|forward|mention|include)|\bas well\b|\btoo\b/;

const IDENTIFIER = /[a-z0-9][a-z0-9_.-]*[a-z0-9]/g;
const NAMED_TOOL = /[a-z0-9][_-][a-z0-9][\w.-]*[`'"]?\s*(?:tool|function|command)\b/;
const CLASS_PHRASE_ANYWHERE = new RegExp(CLASS_PHRASE.source);

function sentences(normalized: string): string[] {
  return normalized.split(/(?<=[.!?;])\s+|\n+/).filter((sentence) => sentence.trim() !== '');
}

/** snake_case or kebab-case with letters on both sides: written as a name, not as prose. */
function looksLikeName(token: string): boolean {
  return /[a-z0-9][_-][a-z0-9]/.test(token) && /[a-z]/.test(token);
}

/**
 * The tools (or classes of tools) that `text`, a string of tool `tool`, directs the use
 * of, when they are not on this server: a tool of another registered server named in a
 * directive sentence, a tool-like name followed by "tool" or "function", or "the email
 * tool" when this server has no email tool. Guidance about this server's own tools is
 * workflow, not shadowing; a mention that steers away ("instead of X") is not either.
 */
export function shadowTargets(
  tool: string,
  text: string,
  scope: ShadowScope,
  normalized: string = normalizeForMatching(text),
): string[] {
  // Without other servers, a target is a name or a class followed by "tool", "function" or
  // "command": most text has neither, and the directive patterns, which scan, are not run.
  if (
    !scope.hasOtherServers &&
    !(
      NAMED_TOOL.test(normalized) ||
      CLASS_PHRASE_ANYWHERE.test(normalized) ||
      (CONDITION.test(normalized) && CLASS_ACTIONS.some((action) => action.words.test(normalized)))
    )
  ) {
    return [];
  }
  if (!DIRECTIVES.some((directive) => directive.test(normalized)) && !CONDITION.test(normalized)) {
    return [];
  }
  const own = new Set([...scope.serverTools].map(toolKey));
  own.add(toolKey(tool));
  const targets = new Set<string>();
  for (const sentence of sentences(normalized)) {
    if (CONDITION.test(sentence) && DIRECTION.test(sentence) && TAMPER.test(sentence)) {
      const words = new Set([...own].flatMap((name) => name.split(/[_.]/)));
      for (const action of CLASS_ACTIONS) {
        if (!action.words.test(sentence)) continue;
        if (action.own.some((word) => words.has(word))) continue;
        targets.add(`any ${action.cls} tool`);
      }
    }
    if (!DIRECTIVES.some((directive) => directive.test(sentence))) continue;
    for (const match of sentence.matchAll(IDENTIFIER)) {
      const token = match[0].replace(/\.+$/, '');
      const name = toolKey(token);
      if (own.has(name)) continue;
      const before = sentence.slice(Math.max(0, match.index - 24), match.index);
      if (AWAY.test(before)) continue;
      const after = sentence.slice(
        match.index + match[0].length,
        match.index + match[0].length + 12,
      );
      const other = scope.otherServerTool(name);
      const written = looksLikeName(token) || /^[`'"]/.test(after) || /[`'"]$/.test(before);
      const calledTool = /^[`'"]?\s*(?:tool|function|command)\b/.test(after);
      if (other !== undefined && (written || calledTool)) {
        targets.add(`${other.name} (server ${other.server})`);
      } else if (other === undefined && looksLikeName(token) && calledTool) {
        targets.add(token);
      }
    }
    for (const match of sentence.matchAll(CLASS_PHRASE)) {
      const cls = match[1]!.replace('e-mail', 'email');
      const before = sentence.slice(Math.max(0, match.index - 24), match.index);
      if (AWAY.test(before)) continue;
      const hasClass = [...own].some((name) => name.split(/[_.]/).includes(cls));
      if (!hasClass) targets.add(`any ${cls} tool`);
    }
  }
  return [...targets];
}
