import { sanitizeForTerminal } from '../text/terminal-text.js';
import { cliStreams } from './streams.js';

/*
 * What long commands (check, lock, verify) show while servers answer: on a terminal, a line
 * on stderr per server as it finishes and a spinner naming those still awaited; nothing when
 * stderr is not a terminal, so that CI logs and pipes get only the result. stdout is never
 * touched: it carries the command's data.
 */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 100;

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export class Progress {
  private readonly stream: ProgressStream;
  private readonly waiting = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private drawn = false;

  constructor(stream: ProgressStream = cliStreams().stderr) {
    this.stream = stream;
  }

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  /** Starts awaiting these servers. */
  start(names: readonly string[]): void {
    if (!this.enabled) return;
    for (const name of names) this.waiting.add(name);
    this.timer ??= setInterval(() => this.draw(), FRAME_MS);
    // The spinner must never keep a command alive on its own.
    this.timer.unref();
    this.draw();
  }

  /** A server finished: its line stays, above the spinner. */
  finished(name: string, ok: boolean, detail: string): void {
    if (!this.enabled) return;
    this.waiting.delete(name);
    this.clear();
    this.stream.write(`${ok ? '✓' : '✗'} ${sanitizeForTerminal(`${name}: ${detail}`)}\n`);
    if (this.waiting.size > 0) this.draw();
  }

  /** Clears the spinner; call before printing the result. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.waiting.clear();
    this.clear();
  }

  private draw(): void {
    if (this.waiting.size === 0) return this.clear();
    const names = [...this.waiting].join(', ');
    const line = `${FRAMES[this.frame++ % FRAMES.length]} waiting for ${sanitizeForTerminal(names)}`;
    const width = Math.max(20, (this.stream.columns ?? 80) - 1);
    this.stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}
