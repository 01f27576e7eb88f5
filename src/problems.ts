import { DriftError } from './errors.js';

/**
 * Collects what is wrong with one request (a command line's flags, a registration) so
 * that a person sees every problem at once, as configuration errors are reported, rather
 * than fixing them one run at a time.
 */
export class Problems {
  private readonly messages: string[] = [];
  private usage = false;

  /** Runs one check; a usage or input error it throws is kept, and undefined returned. */
  check<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      if (
        !(error instanceof DriftError) ||
        !(error.code === 'USAGE' || error.code === 'INVALID_INPUT')
      )
        throw error;
      this.add(error.code, error.message);
      return undefined;
    }
  }

  add(code: 'USAGE' | 'INVALID_INPUT', message: string): void {
    if (code === 'USAGE') this.usage = true;
    if (!this.messages.includes(message)) this.messages.push(message);
  }

  get empty(): boolean {
    return this.messages.length === 0;
  }

  /** One error naming every problem; USAGE when any of them was a usage error. */
  throwIfAny(): void {
    if (this.empty) return;
    throw new DriftError(this.usage ? 'USAGE' : 'INVALID_INPUT', this.messages.join('; '));
  }
}
