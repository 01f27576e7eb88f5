import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DriftError } from './errors.js';

/*
 * OAuth tokens at rest (docs/oauth.md): AES-256-GCM with a 96-bit random nonce per value,
 * sealed as `v1.KEYID.NONCE.TAG.CIPHERTEXT` (base64url). KEYID names the key (the first
 * 8 bytes of its sha256, in hex), so that after a rotation values sealed with the previous
 * key still open while every new write uses the current one. The server's id is bound as
 * additional data: a sealed value copied onto another server's row does not open.
 */

export const KEY_BYTES = 32;

export interface CipherKeys {
  current: Buffer;
  /** Keys that still open older values (MCP_DRIFT_SECRET_KEY_PREVIOUS). */
  previous: Buffer[];
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export class TokenCipher {
  private readonly byId = new Map<string, Buffer>();
  private readonly currentId: string;

  constructor(keys: CipherKeys) {
    for (const key of [keys.current, ...keys.previous]) {
      if (key.length !== KEY_BYTES) {
        throw new DriftError('CONFIG_INVALID', `an encryption key must be ${KEY_BYTES} bytes`);
      }
      this.byId.set(keyId(key), key);
    }
    this.currentId = keyId(keys.current);
  }

  seal(plaintext: string, context: string): string {
    const key = this.byId.get(this.currentId)!;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', this.currentId, nonce, cipher.getAuthTag(), body]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Whether the value was sealed with an older key (it is sealed again on the next write). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.currentId;
  }

  open(sealed: string, context: string): string {
    const [version, id, nonce, tag, body] = sealed.split('.');
    const key = id === undefined ? undefined : this.byId.get(id);
    if (
      version !== 'v1' ||
      !key ||
      nonce === undefined ||
      tag === undefined ||
      body === undefined
    ) {
      throw new DriftError(
        'CONFIG_INVALID',
        'stored OAuth tokens were encrypted with a key that is not configured; set MCP_DRIFT_SECRET_KEY_PREVIOUS to the old key (docs/oauth.md, key rotation), or log in again',
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch (error) {
      throw new DriftError('CONFIG_INVALID', 'a stored OAuth token failed its integrity check', {
        cause: error,
      });
    }
  }
}
