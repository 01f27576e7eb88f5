import type { RawTool } from '../listings/canonical.js';
import { annotationsOf } from './hints.js';
import type { ToolText } from './text-fields.js';

/**
 * Capability mismatch (docs/design.md §4): what a tool's text asks for or claims against what its
 * name and annotations say it is. One row per signal, like content-rules.ts: a parameter
 * that asks for secrets or credential files on a tool whose name has nothing to do with
 * them (a clock tool with a `kubeconfig` parameter), and a text that says "read-only" or
 * "safe" on a tool its own annotations declare destructive.
 */
export interface MismatchRule {
  id: string;
  family: 'mismatch' | 'secrets';
  strength: 'hard' | 'soft';
  reason: string;
  /** The matched text, or null. */
  test: (entry: ToolText, facts: ToolFacts) => string | null;
}

export interface ToolFacts {
  name: string;
  /** The words of the name, lower case ("getCurrentTime" → get, current, time). */
  words: readonly string[];
  /** destructiveHint declared true, and readOnlyHint not declared true. */
  destructive: boolean;
  /** readOnlyHint declared true. */
  readOnly: boolean;
}

export function toolFacts(tool: RawTool): ToolFacts {
  const name = typeof tool['name'] === 'string' ? tool['name'] : '';
  const annotations = annotationsOf(tool);
  return {
    name,
    words: name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word !== ''),
    destructive: annotations['destructiveHint'] === true && annotations['readOnlyHint'] !== true,
    readOnly: annotations['readOnlyHint'] === true,
  };
}

/**
 * Words of a tool name that make asking for credentials, keys or the environment its job:
 * connecting, signing in, deploying, running commands, clusters and clouds, databases.
 */
const RELATED = new Set(
  (
    'auth authenticate authorize login logon signin sign connect connection credential credentials ' +
    'password passwords secret secrets vault key keys token tokens ssh ssl tls cert certificate ' +
    'cluster clusters kube kubectl kubernetes k8s helm deploy deployment aws gcp azure cloud ' +
    'db database sql postgres postgresql pg psql mysql redis mongo mongodb sqlite query ' +
    'redshift snowflake bigquery supabase neon heroku ' +
    'env environment config configure configuration setup settings init ' +
    'run exec execute command shell terminal process spawn start launch script docker container ' +
    'user users account accounts register session cookie cookies browser wallet crypto encrypt decrypt ' +
    'jwt oauth smtp imap email mail server remote sftp ftp git clone'
  ).split(' '),
);

/** A property name that asks for secrets, credential files or the environment. */
const SECRET_PARAMETER =
  /^(?:.*[_-])?(?:passwords?|passwd|passphrase|private[_-]?key|ssh[_-]?(?:key|private[_-]?key|keys)|id[_-]?rsa|kube[_-]?config|kubeconfig|cluster[_-]?(?:credentials?|token|secret|config)|aws[_-]?(?:secret|credentials?|access[_-]?key)[\w-]*|credentials?|creds|secrets|env[_-]?vars|environment[_-]?variables|dotenv|cookies?|session[_-]?cookies?|mnemonic|seed[_-]?phrase|keychain|vault[_-]?token|stored[_-]?passwords?)(?:[_-].*)?$/i;

/** A property description that asks for the same. */
const SECRET_ASK = new RegExp(
  String.raw`\b(?:passwords?|passphrases?|private keys?|ssh keys?|kubeconfig|credentials?|environment variables|env vars|cookies|seed phrases?|mnemonic)\b|\.env\b|contraseña|mots? de passe|passw(?:ort|örter)|senhas?|парол|密码|パスワード|비밀번호|credenciales|identifiants|zugangsdaten|credenciais|credenziali|учетн|учётн|凭据|认证信息|認証情報|자격\\s*증명`,
  'u',
);

const PROPERTY = /(?:^|\.)properties(?:\.[A-Za-z_$][\w$]*|\["[^"]*"\])$/;
const PROPERTY_TEXT =
  /(?:^|\.)properties(?:\.[A-Za-z_$][\w$]*|\["[^"]*"\])\.(?:description|title)$/;

function unrelated(facts: ToolFacts): boolean {
  return facts.words.length > 0 && !facts.words.some((word) => RELATED.has(word));
}

const SAFETY_CLAIM =
  /\b(?:read-?only|safe, read-?only|harmless|no side[- ]effects?|does not (?:modify|change|delete|write|alter) (?:anything|any)|non-?destructive|never (?:modifies|changes|deletes|writes))\b/;
const DESTRUCTIVE_CLAIM =
  /\b(?:permanently )?(?:deletes|removes|destroys|overwrites|wipes|drops|erases|purges)\b/;

export const MISMATCH_RULES: readonly MismatchRule[] = [
  {
    id: 'secret-parameter',
    family: 'mismatch',
    strength: 'hard',
    reason:
      'has a parameter for secrets, credentials or the environment that its name does not need',
    test: (entry, facts) =>
      unrelated(facts) &&
      entry.location === 'key' &&
      PROPERTY.test(entry.path) &&
      SECRET_PARAMETER.test(entry.text)
        ? entry.text
        : null,
  },
  {
    id: 'secret-parameter-text',
    family: 'secrets',
    strength: 'hard',
    reason:
      'a parameter asks for secrets, credentials or the environment that the tool\u2019s name does not need',
    test: (entry, facts) => {
      if (!unrelated(facts) || entry.location !== 'value' || !PROPERTY_TEXT.test(entry.path)) {
        return null;
      }
      const lower = entry.text.toLowerCase();
      const found = SECRET_ASK.exec(lower);
      if (found === null) return null;
      // "Do not include API keys, passwords… in your query" asks for the opposite.
      const sentence = lower
        .slice(0, found.index)
        .split(/[.!?\n]/)
        .pop()!;
      if (/\b(?:do not|don't|never|avoid|no|not|without)\b/.test(sentence)) return null;
      return /\b(?:your|the user'?s|all|stored|saved|full|contents?|entire|current)\b|内容|全部|所有/u.test(
        lower,
      )
        ? found[0]
        : null;
    },
  },
  {
    id: 'safety-claim-on-destructive',
    family: 'mismatch',
    strength: 'hard',
    reason: 'claims to be read-only or safe while its annotations declare it destructive',
    test: (entry, facts) => {
      if (!facts.destructive || entry.location !== 'value') return null;
      if (
        entry.path !== 'description' &&
        entry.path !== 'title' &&
        entry.path !== 'annotations.title'
      )
        return null;
      const text = entry.text.toLowerCase();
      const found = SAFETY_CLAIM.exec(text);
      if (found === null) return null;
      // "not read-only", "is not safe" say the opposite.
      if (
        /\b(?:not|never|isn't|no)\s+(?:\w+\s+)?$/.test(
          text.slice(Math.max(0, found.index - 16), found.index),
        )
      )
        return null;
      return found[0];
    },
  },
  {
    id: 'destructive-claim-on-read-only',
    family: 'mismatch',
    strength: 'soft',
    reason: 'says it deletes or overwrites while its annotations declare it read-only',
    test: (entry, facts) => {
      if (!facts.readOnly || entry.path !== 'description') return null;
      return DESTRUCTIVE_CLAIM.exec(entry.text.toLowerCase())?.[0] ?? null;
    },
  },
];
