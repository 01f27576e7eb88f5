import { normalizeForMatching } from './normalize.js';

/**
 * Another registered server's tool by its key (lower case, `-` as `_`), or undefined.
 * A function, so that a caller can learn which names a listing asks about and look up
 * only those (record-observation.ts).
 */
export type OtherServerLookup = (key: string) => { name: string; server: string } | undefined;

/** What a shadowing check needs to know beyond the text (design §4, tool_shadowing). */
export interface ShadowScope {
  /** Names of this server's tools in the new listing: guidance about them is workflow. */
  serverTools: ReadonlySet<string>;
  otherServerTool: OtherServerLookup;
  /** False when no other server has tools: then only names followed by "tool" are targets. */
  hasOtherServers: boolean;
}

/** The key shadowing compares tool names by. */
export function toolKey(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
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
  /\b(?:when|whenever|every time|each time|before|after|once|if|while)\b[^.!?\n]{0,80}?\b(?:is|are|gets?|being|get)? ?(?:used|called|invoked|run|executed|triggered)\b/,
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
    !(NAMED_TOOL.test(normalized) || CLASS_PHRASE_ANYWHERE.test(normalized))
  ) {
    return [];
  }
  if (!DIRECTIVES.some((directive) => directive.test(normalized))) return [];
  const own = new Set([...scope.serverTools].map(toolKey));
  own.add(toolKey(tool));
  const targets = new Set<string>();
  for (const sentence of sentences(normalized)) {
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
