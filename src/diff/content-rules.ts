/**
 * The instruction_injection rules (docs/design.md §4), one row each: its family, the pattern it
 * matches on normalized text (normalize.ts: lower case, invisible characters removed,
 * homoglyphs and leetspeak folded, spaces collapsed), and why a host should care. The
 * false-positive boundary of each is in docs/content-checks.md; keep the two in step.
 *
 * Families: a description that merely says IMPORTANT, MUST or NEVER, or names paths, is
 * not matched; what is matched is text that addresses the model against its user.
 */
import { conceptPattern } from './model-lexicon.js';

export type InjectionFamily =
  'concealment' | 'override' | 'secrets' | 'exfiltration' | 'behaviour' | 'mismatch';

/**
 * Hard: a finding (high) alone. Soft: recorded, and a finding only in combination with
 * another signal of the same text (evidence, docs/design.md §4): an imperative to the model, a
 * mention of secrets or of approval is ordinary in documentation on its own.
 */
export type Strength = 'hard' | 'soft';

export interface ContentRule {
  id: string;
  family: InjectionFamily;
  /**
   * Matched on the normalized text; `all` rules instead match when one sentence of the
   * multilingual form (NFKC, lower case, not folded to ASCII) holds every one of its parts.
   */
  pattern: RegExp;
  all?: readonly RegExp[];
  /** Default hard. */
  strength?: Strength;
  /** Skipped when a hard rule of the same family matched the text before it in the table. */
  fallback?: boolean;
  reason: string;
  /**
   * A match in a sentence that negates it before the match ("Do not include API keys in
   * your query") does not count. Rules that name files or markup count wherever they are.
   */
  negatable?: boolean;
  /**
   * A cheap test that every match passes (a word the pattern cannot do without): most
   * text fails it, and the pattern itself, which scans, is not run then.
   */
  quick: RegExp;
}

/** Who the model works for: the person a concealment sentence hides things from. */
const USER = String.raw`(?:the |your |this )?(?:user|human|operator|person|client|developer|owner)s?`;
const TELL = String.raw`(?:tell|telling|inform|informing|mention|mentioning|show|showing|reveal|revealing|notify|notifying|alert|alerting|disclose|disclosing|let|letting|warn|warning|say|saying)`;
const NOT = String.raw`(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|without|no need to|avoid)`;
/** Verbs that move data somewhere. */
const SEND = String.raw`(?:send|sends|sending|post|posts|posting|upload|uploads|uploading|forward|forwards|forwarding|transmit|transmits|transmitting|exfiltrate|exfiltrating|submit|submitting|report|reporting|leak|leaking|copy|copying|mail|email|beacon|deliver|delivering|pipe|piping)`;
/** What a model could be told to move: data, not an action. */
const DATA = String.raw`(?:data|contents?|results?|outputs?|files?|conversations?|chat|history|messages?|keys?|tokens?|credentials?|secrets?|passwords?|it|this|them|everything|all|information|info|details|logs?|env(?:ironment)?(?: variables)?|(?:the |your |all )?(?:user'?s?|query|input|response|answer|context|session)(?: \w+)?)`;
const DESTINATION = String.raw`(?:https?://|wss?://|ftp://|[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}|\b\d{1,3}(?:\.\d{1,3}){3}\b|webhook)`;
/** Verbs that take something from where it is. */
const TAKE = String.raw`(?:read|reads|reading|cat|open|opening|include|including|attach|attaching|append|appending|pass|passing|send|sending|provide|providing|give|giving|copy|copying|extract|extracting|collect|collecting|output|print|printing|share|sharing|reveal|revealing|dump|dumping|paste|pasting|add|adding|put|putting|insert|inserting|embed|embedding)`;
const SECRET = String.raw`(?:credentials?|secrets?|api[ _-]?keys?|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer tokens?|session (?:ids?|tokens?|cookies?)|cookies|passwords?|passphrases?|private[ _-]?keys?|ssh[ _-]?keys?|seed phrases?|recovery phrases?|mnemonic(?: phrases?)?)`;
/** A file is asked for when a verb that takes it comes first in the sentence. */
const ASKED = String.raw`(?:\b${TAKE}\b|\bcontents? of\b)[^.\n]{0,80}?`;
const WHOSE = String.raw`(?:your|the user'?s|users'?|user'?s|all|any|every|local|stored|saved|their|the machine'?s|system)`;

export const CONTENT_RULES: readonly ContentRule[] = [
  // Concealment: the model is told to keep something from its user.
  {
    id: 'conceal-from-user',
    quick: /user|human|operator|person|client|developer|owner/,
    family: 'concealment',
    pattern: new RegExp(
      String.raw`\b${NOT} ${TELL}(?: (?:it|this|that|anything|these|any|the|about|of)(?: \w+)?)?(?: to| with)? ${USER}\b`,
    ),
    reason: 'tells the model to keep something from its user',
  },
  {
    id: 'hide-from-user',
    quick: /user|human|operator|person|client|developer|owner/,
    family: 'concealment',
    pattern: new RegExp(
      String.raw`\b(?:hide|hiding|conceal|concealing|keep|keeping) (?:this|it|that|these|the \w+|all \w+|everything)(?: \w+){0,3} (?:secret |hidden )?from ${USER}\b`,
    ),
    reason: 'tells the model to hide something from its user',
  },
  {
    id: 'user-must-not-know',
    quick: /user|human|operator|person|client|developer|owner/,
    family: 'concealment',
    pattern: new RegExp(
      String.raw`\b${USER} (?:must|should|need|needs|may) (?:not|never) (?:know|see|notice|find out|be told|be informed|learn)\b`,
    ),
    reason: 'says the user must not learn what the model does',
  },
  {
    id: 'not-visible-to-user',
    quick: /user|human|operator|person|client|developer|owner/,
    family: 'concealment',
    pattern: new RegExp(
      String.raw`\b(?:not|never) (?:be )?(?:visible|shown|displayed|revealed|mentioned) to ${USER}\b`,
    ),
    reason: 'asks for an action the user is not to see',
  },
  {
    id: 'covert-action',
    quick: /silently|secretly|quietly|covertly|discreetly|invisibly/,
    family: 'concealment',
    pattern: new RegExp(
      String.raw`\b(?:silently|secretly|quietly|covertly|discreetly|invisibly) (?:send|upload|post|forward|copy|include|add|append|read|exfiltrate|transmit|attach|call|invoke|run|execute|bcc|cc)\b`,
    ),
    reason: 'asks the model to act covertly',
  },
  // Priority overrides: the text claims authority over the host's instructions.
  {
    id: 'ignore-instructions',
    quick: /ignor|disregard|forget|overrid|bypass|skip/,
    family: 'override',
    pattern:
      /\b(?:ignore|ignoring|disregard|disregarding|forget|override|overriding|bypass|skip) (?:all |any |the |your |every )*(?:previous|prior|above|earlier|preceding|other|system|original|existing|safety|security|user'?s?)(?: \w+)? (?:instructions?|prompts?|rules|directions|guidelines|messages|policies|policy|constraints|restrictions|guardrails)\b/,
    reason: 'tells the model to set its instructions aside',
  },
  {
    id: 'instruction-tag',
    quick: /</,
    family: 'override',
    pattern:
      /<\s*\/?\s*(?:important|system(?:[ _-]?prompt)?|admin|secret|hidden|critical|override|assistant|sudo|priority)\s*>/,
    reason: 'wraps text in a tag meant to read to the model as a higher-priority instruction',
  },
  {
    id: 'role-prefix',
    quick: /:/,
    family: 'override',
    pattern:
      /(?:^|\n|[.!?] )\s*(?:\[\s*)?(?:system|assistant|admin|developer)(?: message| prompt| override| note)?\s*(?:\]\s*)?:\s*\S/,
    reason: 'poses as a system or assistant message inside tool text',
  },
  {
    id: 'before-any-tool',
    quick: /before|prior to|instead of/,
    family: 'override',
    pattern:
      /\b(?:before|prior to|instead of) (?:using|calling|invoking|running|executing|responding|answering|replying)(?: to)? (?:any|every|all|each|another|other) (?:other )?(?:tools?|functions?|requests?|questions?|messages?)\b/,
    reason: 'claims priority over every other tool or request',
  },
  {
    id: 'new-instructions',
    quick: /instruction|you are now|you must now|from now on/,
    family: 'override',
    pattern:
      /\b(?:new|updated|real|true|actual|hidden|secret) (?:system )?instructions?\s*:|\byou (?:are|must) now\b|\bfrom now on,? (?:you|always|never)\b/,
    reason: 'announces instructions that replace the host\u2019s',
  },
  {
    id: 'precedence-claim',
    quick: /precedence|priority|overrid|supersed/,
    family: 'override',
    pattern:
      /\b(?:this|these) (?:tool|instruction|rule|note)s? (?:takes?|has|have) (?:precedence|priority) over\b|\b(?:overrides?|supersedes?) (?:all |any )?(?:other |previous )?(?:instructions|rules|tools)\b/,
    reason: 'claims precedence over the host\u2019s instructions',
  },
  // Secrets: the text asks for key files, credentials or configuration.
  {
    id: 'ssh-key-file',
    quick: /ssh|id_|authorized_keys|known_hosts/,
    family: 'secrets',
    negatable: true,
    pattern: new RegExp(
      `${ASKED}(?:${/~\/\.ssh\b|\.ssh\/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|\bknown_hosts\b/.source})`,
    ),
    reason: 'asks for SSH key files',
  },
  {
    id: 'env-file',
    quick: /\.env/,
    family: 'secrets',
    negatable: true,
    pattern: new RegExp(
      String.raw`${ASKED}(?:^|[\s'"\x60(/~])\.env(?:\.local|\.production)?\b(?![-\w])`,
    ),
    reason: 'asks for a .env file, where applications keep their secrets',
  },
  {
    id: 'mcp-config',
    quick: /mcp|claude_desktop|codeium/,
    family: 'secrets',
    negatable: true,
    pattern: new RegExp(
      String.raw`${ASKED}(?:\bmcp\.json\b|\bclaude_desktop_config\.json\b|\.cursor\/mcp|\bmcp_config\.json\b|\.codeium\/windsurf|\.vscode\/mcp)`,
    ),
    reason: 'asks for an MCP host configuration file, which holds every server\u2019s credentials',
  },
  {
    id: 'credential-file',
    quick:
      /\.aws|npmrc|netrc|pgpass|docker|kube|git-cred|\/etc\/|gnupg|wallet|gcloud|azure|_history|keychain|password-store/,
    family: 'secrets',
    negatable: true,
    pattern: new RegExp(
      `${ASKED}(?:${/\.aws\/(?:credentials|config)\b|\.npmrc\b|\.netrc\b|\.pgpass\b|\.docker\/config\.json|\.kube\/config\b|\.git-credentials\b|\/etc\/(?:shadow|passwd|sudoers)\b|\.gnupg\b|\bwallet\.dat\b|\.config\/gcloud|\.azure\/|\.bash_history\b|\.zsh_history\b|\bkeychain\b|\.password-store\b/.source})`,
    ),
    reason: 'asks for a file that holds credentials',
  },
  {
    id: 'take-secret',
    quick: /credential|secret|key|token|cookie|password|passphrase|seed|recovery|mnemonic/,
    negatable: true,
    family: 'secrets',
    pattern: new RegExp(String.raw`\b${TAKE}\b[^.\n]{0,40}?\b${WHOSE}\b[^.\n]{0,30}?\b${SECRET}\b`),
    reason: 'asks the model to take the user\u2019s credentials, keys or tokens',
  },
  {
    id: 'secret-as-argument',
    quick: /credential|secret|key|token|cookie|password|passphrase|seed|recovery|mnemonic/,
    negatable: true,
    family: 'secrets',
    pattern: new RegExp(
      String.raw`\b${SECRET}\b[^.\n]{0,40}\b(?:as|in|into|inside|within) (?:the |a |an )?(?:[\w"'\`]+ )?(?:parameter|argument|field|query|notes?|sidenote|context|comment|metadata|header)\b`,
    ),
    reason: 'asks for credentials or keys to be passed inside a tool argument',
  },
  // Exfiltration: data is to leave for a place the user did not choose.
  {
    id: 'send-to-address',
    quick: /:\/\/|@|webhook|\d\.\d/,
    negatable: true,
    family: 'exfiltration',
    pattern: new RegExp(
      String.raw`\b${SEND}\b[^.\n]{0,60}?\b${DATA}\b[^.\n]{0,60}?\b(?:to|at|via|into|using) (?:the )?(?:\w+ ){0,2}${DESTINATION}`,
    ),
    reason: 'asks for data to be sent to a URL or address',
  },
  {
    id: 'markdown-image-beacon',
    quick: /!\[/,
    family: 'exfiltration',
    pattern: /!\[[^\]\n]*\]\(\s*<?(?:https?:)?\/\/[^)\s]*(?:[?#&=]|\{|%7b|\$\{|\{\{)[^)]*\)/,
    reason: 'a markdown image whose URL carries data: rendering it sends the data away',
  },
  {
    id: 'command-upload',
    quick: /curl|wget|nc|netcat|invoke-webrequest|iwr/,
    family: 'exfiltration',
    pattern:
      /\b(?:curl|wget|nc|netcat|invoke-webrequest|iwr)\b[^\n]{0,80}(?:\s-d\b|--data|\s-f\b|--upload-file|\s-t\b|--post-data|\$\(|`|\|)[^\n]{0,80}(?:https?:\/\/|\b\d{1,3}(?:\.\d{1,3}){3}\b)|\b(?:curl|wget)\b[^\n]{0,40}https?:\/\/[^\s]*(?:\$\(|\$\{|`)/,
    reason: 'a shell command that ships data to a remote host',
  },
  {
    id: 'blind-copy',
    quick: /@/,
    negatable: true,
    family: 'exfiltration',
    pattern:
      /\b(?:bcc|cc|blind copy|blind-copy|carbon copy)\b[^.\n]{0,40}?[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/,
    reason: 'adds a hidden recipient to messages the model sends',
  },
  // Behaviour change: the model is told to stop asking, to report falsely, to run code.
  {
    id: 'skip-confirmation',
    quick: /confirm|approv|permission|consent|allow|whitelist/,
    family: 'behaviour',
    pattern:
      /\b(?:do not|don't|dont|never|no need to|there is no need to) (?:ask|prompt|request|wait for)(?: the user| them)?(?: for)? (?:a |any )?(?:confirmation|permission|approval|consent)\b|\b(?:is|are|has been|have been|was|were) (?:already )?(?:pre-?approved|pre-?authori[sz]ed|allow-?listed|whitelisted|approved in advance)\b|\bskip (?:the |any |all )?(?:user )?(?:confirmation|approval|permission)s?\b(?! prompts?\b| dialogs?\b)/,
    reason: 'tells the model to act without the user\u2019s confirmation',
  },
  {
    id: 'report-nothing-changed',
    fallback: true,
    quick: /nothing|no /,
    family: 'concealment',
    pattern:
      /\b(?:tell|inform|assure|reassure|report to|reply to|respond to|say to|answer) (?:the )?(?:user|human|operator)s? (?:that )?(?:nothing|no (?:files?|changes?|data|actions?|modifications?))\b|\b(?:say|report|claim|state|respond|reply|confirm) (?:only )?(?:that )?(?:nothing|no (?:files?|changes?|data|modifications?)) (?:was|were|has been|have been|is|are) (?:changed|modified|deleted|sent|touched|written|transferred|done)\b/,
    reason: 'tells the model to tell its user that nothing happened',
  },
  {
    id: 'call-first-always',
    fallback: true,
    quick: /conversation|session|chat|request|task|message|response|turn/,
    family: 'override',
    pattern:
      /\b(?:call|use|run|invoke|execute|trigger) (?:this|the \S+) (?:tool|function)(?: first)? (?:at the (?:start|beginning) of|before|in|for|on) (?:every|each|any|all) (?:new )?(?:conversations?|sessions?|chats?|requests?|tasks?|messages?|responses?|turns?)\b|\b(?:at the (?:start|beginning) of|in) (?:every|each) (?:new )?(?:conversation|session|chat)\b[^.\n]{0,60}\b(?:call|use|run|invoke|execute)\b/,
    reason: 'claims a place first in every conversation',
  },
  {
    id: 'pipe-to-shell',
    quick: /curl|wget|iwr|invoke-webrequest|iex|powershell/,
    family: 'behaviour',
    pattern:
      /\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\|\s*iex\b|\bpowershell\b[^\n]{0,40}\s-(?:enc|encodedcommand|e)\s/,
    reason: 'a command that downloads code and runs it',
  },
  {
    id: 'sensitive-resource',
    fallback: true,
    quick:
      /169\.254|metadata|100\.100|kube|cookie|login data|logins\.json|key4\.db|keyring|environ|printenv|process\.env|_token|_key|_secret|_password|secret_|token|api_key/,
    family: 'secrets',
    negatable: true,
    pattern: new RegExp(
      String.raw`${ASKED}(?:${/169\.254\.169\.254|\bmetadata\.google\.internal\b|\b100\.100\.100\.200\b|\/latest\/meta-data\b|\bkubeconfig\b|\.kube\b|\bcookies\.sqlite\b|\blogin data\b|\blogins\.json\b|\bkey4\.db\b|\bkeyring\b|\/proc\/self\/environ\b|\bprintenv\b|\bprocess\.env\b|\b(?:aws_secret_access_key|aws_access_key_id|aws_session_token|github_token|gh_token|gitlab_token|npm_token|openai_api_key|anthropic_api_key|slack_(?:bot_)?token|stripe_secret_key|database_url|[a-z]+_api_key|[a-z]+_secret_key|[a-z]+_client_secret)\b|\$\{?[a-z_]*(?:token|key|secret|password)\b|\ball (?:the )?environment variables\b|\bbrowser(?:'s)? (?:cookies|saved passwords|password store)\b/.source})`,
    ),
    reason:
      'asks for a credential store, a cloud metadata endpoint or a secret environment variable',
  },
  // Exfiltration sinks that carry data whatever the sentence around them says.
  {
    id: 'data-url-placeholder',
    fallback: true,
    quick: /\/\//,
    family: 'exfiltration',
    pattern:
      /(?:https?:)?\/\/[^\s)"'\]]*?(?:\{\{?\s*|\$\{?|<|%7b|\[)[a-z_]*?(?:data|secret|token|key|contents?|file|env|conversation|history|password|creds|credential|output|result|response|message|chat|prompt|summary|cookie|session|payload|b64|base64)[a-z_]*/,
    reason: 'a URL with a placeholder for data: filling it in sends the data there',
  },
  {
    id: 'html-image-beacon',
    fallback: true,
    quick: /<img/,
    family: 'exfiltration',
    pattern: /<img\b[^>]{0,200}\bsrc\s*=\s*["']?(?:https?:)?\/\/[^"'\s>]*(?:[?#&=]|\{|\$\{)/,
    reason: 'an HTML image whose URL carries data: rendering it sends the data away',
  },
  {
    id: 'dns-label-data',
    fallback: true,
    quick: /\.|subdomain|dns|hostname/,
    family: 'exfiltration',
    pattern:
      /(?:\{\{?|\$\{?|<)[a-z_]*(?:data|secret|token|key|contents?|env|password|output|b64|hex|encoded)[a-z_]*(?:\}\}?|>)\.[a-z0-9-]+\.[a-z]{2,}|\b(?:encode|encoding|put|putting|embed|embedding|place|placing|prepend)\b[^.\n]{0,60}\b(?:as|into|in) (?:a |the )?(?:subdomain|dns label|hostname)s?\b|\b(?:nslookup|dig|resolve|ping)\b[^.\n]{0,40}(?:\$\(|\{|<)/,
    reason: 'data put into a host name: looking it up sends the data to its DNS server',
  },
  {
    id: 'call-fetch-with-data',
    fallback: true,
    quick: /fetch|http|request|curl|webhook|mail|post|upload/,
    family: 'exfiltration',
    negatable: true,
    pattern:
      /\b(?:call|use|invoke|run)\b (?:the )?[`'"]?[\w.-]*(?:fetch|http|request|curl|webhook|email|mail|post|upload)[\w.-]*[`'"]? (?:tool |function )?(?:with|passing|and (?:pass|include|send))\b(?:[^.\n]|\.(?=\S)){0,120}\b(?:contents?|env|environment|secrets?|keys?|tokens?|credentials?|passwords?|conversation|history|output|results?|data)\b/,
    reason: 'tells the model to call a fetch, HTTP or e-mail tool with data',
  },
  // Multilingual concepts combined within one sentence (model-lexicon.ts).
  {
    id: 'ml-conceal-from-user',
    fallback: true,
    quick: /./,
    family: 'concealment',
    pattern: /$^/,
    all: [conceptPattern('conceal'), conceptPattern('user')],
    reason: 'tells the model to keep something from its user',
  },
  {
    id: 'ml-ignore-instructions',
    fallback: true,
    quick: /./,
    family: 'override',
    pattern: /$^/,
    all: [conceptPattern('ignore', ['en']), conceptPattern('instructions', ['en'])],
    reason: 'tells the model to set its instructions aside',
  },
  {
    id: 'ml-sensitive-file',
    fallback: true,
    quick: /./,
    family: 'secrets',
    pattern: /$^/,
    all: [
      /~\/\.ssh|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws\/credentials|\.kube\/config|\.env\b|mcp\.json|claude_desktop_config|\.npmrc|\.netrc|\.git-credentials|\/etc\/shadow/u,
      new RegExp(
        `${conceptPattern('attach').source}|${conceptPattern('send').source}|${conceptPattern('contents').source}`,
        'u',
      ),
    ],
    reason: 'asks for a key or credential file',
  },
  {
    id: 'ml-no-confirmation',
    fallback: true,
    quick: /./,
    family: 'behaviour',
    pattern: /$^/,
    all: [
      conceptPattern('no-confirm'),
      new RegExp(
        `${conceptPattern('assistant').source}|${conceptPattern('user').source}|${conceptPattern('first').source}|this tool|cette fonction|este tool|diese[sm]? tool|このツール|此工具|该工具|이 도구|questo strumento|esta ferramenta|этот инструмент`,
        'u',
      ),
    ],
    reason: 'tells the model that its user\u2019s confirmation is not needed',
  },
  {
    id: 'ml-send-secret',
    fallback: true,
    quick: /./,
    family: 'secrets',
    pattern: /$^/,
    all: [
      conceptPattern('secret'),
      new RegExp(`${conceptPattern('send').source}|${conceptPattern('attach').source}`, 'u'),
      new RegExp(
        `${conceptPattern('assistant').source}|${conceptPattern('first').source}|${conceptPattern('contents').source}`,
        'u',
      ),
    ],
    reason: 'asks the model to pass on secrets, keys or passwords',
  },
  {
    id: 'ml-conversation',
    fallback: true,
    quick: /./,
    family: 'secrets',
    pattern: /$^/,
    all: [
      conceptPattern('conversation'),
      new RegExp(`${conceptPattern('send').source}|${conceptPattern('attach').source}`, 'u'),
    ],
    reason: 'asks for the conversation or the system prompt to be passed on',
  },
  // Soft signals: recorded, a finding only together with another signal of the text.
  {
    id: 'addressed-to-model',
    quick: /./,
    family: 'override',
    strength: 'soft',
    pattern: /$^/,
    all: [conceptPattern('assistant')],
    reason: 'speaks to the assistant rather than describing the tool',
  },
  {
    id: 'mentions-secret',
    quick: /./,
    family: 'secrets',
    strength: 'soft',
    pattern: /$^/,
    all: [
      conceptPattern('secret'),
      new RegExp(`${conceptPattern('send').source}|${conceptPattern('attach').source}`, 'u'),
    ],
    reason: 'speaks of passing secrets on',
  },
  {
    id: 'urgency',
    quick: /important|urgent|critical|immediately|must|mandatory/,
    family: 'override',
    strength: 'soft',
    pattern: /\b(?:important|urgent|critical|immediately|mandatory)\b[:!]|\byou must\b/,
    reason: 'presses the model with urgency',
  },
  {
    id: 'approval-claim',
    quick: /./,
    family: 'behaviour',
    strength: 'soft',
    pattern: /$^/,
    all: [conceptPattern('no-confirm')],
    reason: 'speaks of approval that makes confirmation unnecessary',
  },
];

/** A negation earlier in the sentence than the match. */
const NEGATION =
  /\b(?:do not|don't|dont|never|avoid|must not|mustn't|should not|shouldn't|not|no|without|nor|refuses? to|prevents?|blocks?)\b/;

function sentenceBefore(text: string, index: number): string {
  const start = Math.max(
    text.lastIndexOf('.', index - 1),
    text.lastIndexOf('!', index - 1),
    text.lastIndexOf('?', index - 1),
    text.lastIndexOf('\n', index - 1),
  );
  return text.slice(start + 1, index);
}

const GLOBAL = new WeakMap<RegExp, RegExp>();

/** The text `rule` matches in `text`, somewhere that is not negated (for negatable rules). */
function ruleMatch(rule: ContentRule, text: string): string | null {
  if (!rule.quick.test(text)) return null;
  if (!rule.negatable) return rule.pattern.exec(text)?.[0] ?? null;
  if (!rule.pattern.test(text)) return null;
  let global = GLOBAL.get(rule.pattern);
  if (global === undefined) {
    global = new RegExp(rule.pattern.source, `${rule.pattern.flags}g`);
    GLOBAL.set(rule.pattern, global);
  }
  for (const match of text.matchAll(global)) {
    if (!NEGATION.test(sentenceBefore(text, match.index))) return match[0];
  }
  return null;
}

/** Sentences of the multilingual form: CJK full stops end one without a space. */
function sentencesOf(plain: string): string[] {
  return plain.split(/[.!?;](?=\s|$)|[。！？；\n]/u).filter((part) => part.trim() !== '');
}

const CLIP = 160;

/** The sentence of `plain` that holds every part of an `all` rule, or null. */
function allMatch(
  parts: readonly RegExp[],
  plain: string,
  sentences: () => string[],
  memo: Map<RegExp, boolean>,
): string | null {
  for (const part of parts) {
    let found = memo.get(part);
    if (found === undefined) {
      found = part.test(plain);
      memo.set(part, found);
    }
    if (!found) return null;
  }
  for (const sentence of sentences()) {
    if (parts.every((part) => part.test(sentence))) {
      const text = sentence.trim();
      return text.length > CLIP ? `${text.slice(0, CLIP - 1)}…` : text;
    }
  }
  return null;
}

/** A rule that matched, and the text it matched (or the sentence that held its parts). */
export interface RuleMatch {
  rule: ContentRule;
  text: string;
}

/**
 * The rules a text matches, in table order, each at most once. `normalized` and its
 * `variants` (leetspeak folded, an identifier's words) are read by pattern rules; `plain`,
 * the multilingual form (normalize.ts, lexiconForm), by the rules that combine concepts.
 */
export function matchRules(
  normalized: string,
  variants: ReadonlyArray<string | null>,
  plain: string,
): RuleMatch[] {
  const forms = [normalized, ...variants.filter((form) => form !== null)];
  let split: string[] | null = null;
  const sentences = () => (split ??= sentencesOf(plain));
  // Rules share concept patterns: each is tested on the whole text once.
  const memo = new Map<RegExp, boolean>();
  const out: RuleMatch[] = [];
  for (const rule of CONTENT_RULES) {
    let text: string | null = null;
    // A multilingual or sink rule is a fallback: it adds nothing where a rule of its
    // family already matched (one finding names one reason per family).
    if (
      rule.fallback === true &&
      out.some((hit) => hit.rule.family === rule.family && (hit.rule.strength ?? 'hard') === 'hard')
    ) {
      continue;
    }
    if (rule.all !== undefined) {
      text = allMatch(rule.all, plain, sentences, memo);
    } else {
      for (const form of forms) {
        text = ruleMatch(rule, form);
        if (text !== null) break;
      }
    }
    if (text !== null) out.push({ rule, text });
  }
  return out;
}

/**
 * The rules a normalized text matches, in table order, each at most once; `variants` are
 * other readings of the same text (leetspeak folded, an identifier's words).
 */
export function matchingRules(
  normalized: string,
  ...variants: ReadonlyArray<string | null>
): ContentRule[] {
  return matchRules(normalized, variants, normalized).map((match) => match.rule);
}
