import { createInterface } from 'node:readline/promises';
import { DriftError } from '../errors.js';
import { cliStreams } from './streams.js';

/**
 * Asking before a command changes what cannot be put back (an approval, a removal). A
 * script has nobody to answer, so without a terminal it must say `--yes`: refusing is
 * safer than guessing, and the refusal comes before anything is read or written.
 */
export function requireConfirmable(command: string, yes: unknown): void {
  if (yes === true || cliStreams().stdin.isTTY) return;
  throw new DriftError(
    'USAGE',
    `${command}: stdin is not a terminal, so nobody can confirm; pass --yes to go ahead without asking`,
  );
}

/**
 * Asks `question [y/N]` on stderr (stdout carries the data shown before it) and resolves
 * when the answer is yes; anything else, end of input or Ctrl-C is a no, and nothing changes.
 */
export async function confirm(
  question: string,
  options: { yes: unknown; signal: AbortSignal },
): Promise<void> {
  if (options.yes === true) return;
  const { stdin, stderr } = cliStreams();
  const lines = createInterface({ input: stdin, output: stderr as NodeJS.WritableStream });
  const declined = () => new DriftError('DECLINED', 'not confirmed; nothing was changed');
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      lines.on('SIGINT', () => reject(declined()));
      lines.on('close', () => reject(declined()));
      lines
        .question(`${question} [y/N] `, { signal: options.signal })
        .then(resolve, () => reject(declined()));
    });
    if (!/^\s*y(es)?\s*$/i.test(answer)) throw declined();
  } finally {
    lines.close();
  }
}
