import { visibleText } from '../text/visible-text.js';

/**
 * Slack's mrkdwn gives `&`, `<` and `>` a meaning (entities, links, mentions such as
 * `<!channel>`), so text from a server must carry them as entities, and nothing else is
 * decoded. Invisible characters are made visible first. Pure.
 */
export function escapeMrkdwn(text: string): string {
  return visibleText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** plain_text is shown as written: only the invisible characters need showing. */
export function plainText(text: string): string {
  return visibleText(text);
}

/**
 * Cuts text to Slack's limit for its field (counted in characters, as Slack counts them),
 * never inside an entity or a surrogate pair.
 */
export function fitSlack(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  cut = cut.replace(/&[a-z]{0,4}$/, '');
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}…`;
}
