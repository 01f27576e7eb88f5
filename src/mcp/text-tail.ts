/**
 * Keeps the last `limit` characters of a stream of text. A child's stderr must be read
 * continuously (a full pipe blocks the child), but only its end explains a failure.
 */
export class TextTail {
  private text = '';

  constructor(private readonly limit: number) {}

  append(chunk: string): void {
    this.text += chunk;
    // Trim lazily so a chatty child costs one slice per `limit` characters, not per chunk.
    if (this.text.length > this.limit * 2) this.text = this.text.slice(-this.limit);
  }

  toString(): string {
    return this.text.length > this.limit ? this.text.slice(-this.limit) : this.text;
  }
}
