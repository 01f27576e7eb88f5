/*
 * A validator of Slack messages from Block Kit's documented shape and limits
 * (api.slack.com/reference/block-kit/blocks and /composition-objects): at most 50 blocks
 * per message; a header's text is plain_text of at most 150 characters; a section has a
 * text object of at most 3000 characters and/or at most 10 fields of at most 2000; a
 * context has 1 to 10 elements; a divider has nothing but its type; block_id at most 255;
 * a text object is plain_text or mrkdwn with a non-empty `text`. And mrkdwn's escaping
 * rule: `&`, `<` and `>` appear only as &amp; &lt; &gt; (this message sends no links or
 * mentions, so no raw `<` may appear at all). Returns every problem, empty when valid.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkKeys(where: string, value: Json, allowed: string[], problems: string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) problems.push(`${where}: unknown key "${key}"`);
  }
}

function checkText(
  where: string,
  value: unknown,
  problems: string[],
  options: { max: number; plainOnly?: boolean },
): void {
  if (!isObject(value)) {
    problems.push(`${where}: not a text object`);
    return;
  }
  const { type, text } = value;
  if (type !== 'plain_text' && type !== 'mrkdwn') problems.push(`${where}: type "${String(type)}"`);
  if (options.plainOnly && type !== 'plain_text') problems.push(`${where}: must be plain_text`);
  checkKeys(
    where,
    value,
    type === 'plain_text' ? ['type', 'text', 'emoji'] : ['type', 'text', 'verbatim'],
    problems,
  );
  if (typeof text !== 'string' || text.length === 0) {
    problems.push(`${where}: text must be a non-empty string`);
    return;
  }
  if (text.length > options.max)
    problems.push(`${where}: ${text.length} characters, over ${options.max}`);
  if (type === 'mrkdwn') {
    if (/[<>]/.test(text)) problems.push(`${where}: raw < or > in mrkdwn`);
    if (/&(?!amp;|lt;|gt;)/.test(text)) problems.push(`${where}: unescaped & in mrkdwn`);
  }
}

export function blockKitProblems(message: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(message)) return ['the message is not an object'];
  if (typeof message['text'] !== 'string' || message['text'] === '') {
    problems.push('a top-level text (the notification fallback) is missing');
  }
  const blocks = message['blocks'];
  if (!Array.isArray(blocks) || blocks.length === 0)
    return [...problems, 'blocks must be a non-empty array'];
  if (blocks.length > 50) problems.push(`${blocks.length} blocks, over 50`);
  blocks.forEach((block: unknown, index) => {
    const where = `blocks[${index}]`;
    if (!isObject(block)) {
      problems.push(`${where}: not an object`);
      return;
    }
    const blockId = block['block_id'];
    if (blockId !== undefined && (typeof blockId !== 'string' || blockId.length > 255)) {
      problems.push(`${where}: block_id over 255 characters`);
    }
    switch (block['type']) {
      case 'header':
        checkKeys(where, block, ['type', 'text', 'block_id'], problems);
        checkText(`${where}.text`, block['text'], problems, { max: 150, plainOnly: true });
        break;
      case 'section': {
        checkKeys(where, block, ['type', 'text', 'fields', 'block_id', 'accessory'], problems);
        const fields = block['fields'];
        if (block['text'] === undefined && fields === undefined)
          problems.push(`${where}: needs text or fields`);
        if (block['text'] !== undefined)
          checkText(`${where}.text`, block['text'], problems, { max: 3000 });
        if (fields !== undefined) {
          if (!Array.isArray(fields) || fields.length > 10)
            problems.push(`${where}: at most 10 fields`);
          else
            fields.forEach((field: unknown, i) =>
              checkText(`${where}.fields[${i}]`, field, problems, { max: 2000 }),
            );
        }
        break;
      }
      case 'context': {
        checkKeys(where, block, ['type', 'elements', 'block_id'], problems);
        const elements = block['elements'];
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 10) {
          problems.push(`${where}: 1 to 10 elements`);
        } else {
          elements.forEach((element: unknown, i) =>
            checkText(`${where}.elements[${i}]`, element, problems, { max: 3000 }),
          );
        }
        break;
      }
      case 'divider':
        checkKeys(where, block, ['type', 'block_id'], problems);
        break;
      default:
        problems.push(`${where}: a block type this message does not use: ${String(block['type'])}`);
    }
  });
  return problems;
}
