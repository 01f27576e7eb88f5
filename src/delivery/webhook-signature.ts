import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Mcp-Drift-Signature';

/**
 * `t=UNIX_SECONDS,v1=HEX`, HEX being HMAC-SHA256 keyed with WEBHOOK_SECRET over
 * `t + "." + raw body`, as Stripe and GitHub sign theirs: the receiver recomputes it over
 * the bytes it received and rejects old timestamps, so a captured request cannot be
 * replayed later. Signed afresh at each attempt; the delivery key stays.
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const hex = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${hex}`;
}
