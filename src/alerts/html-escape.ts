const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe in element text and in quoted attribute values, the only places markup takes text. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/**
 * Markup whose text parts are already escaped. Only `markup` makes one, so a string can
 * reach the message unescaped only by being written literally in a template.
 */
export class SafeHtml {
  readonly #markup: string;

  private constructor(markup: string) {
    this.#markup = markup;
  }

  static fromTemplate(strings: TemplateStringsArray, values: readonly HtmlValue[]): SafeHtml {
    let markup = strings[0] ?? '';
    values.forEach((value, index) => {
      markup += render(value) + (strings[index + 1] ?? '');
    });
    return new SafeHtml(markup);
  }

  toString(): string {
    return this.#markup;
  }
}

export type HtmlValue = SafeHtml | string | number | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * A template whose every interpolation is escaped, except markup made by `markup` itself.
 * Not named `html`: Prettier would reformat the templates, and with them the message.
 */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  return SafeHtml.fromTemplate(strings, values);
}
