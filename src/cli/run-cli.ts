import { runCommand } from './run-command.js';

/*
 * The executable's process: arguments from argv, the shutdown signal from SIGINT/SIGTERM,
 * and the exit once the output has reached the OS. What a command does and how its errors
 * become exit codes is run-command.ts.
 */

/**
 * Every command must be gone within 5 s of SIGTERM/SIGINT; a second signal ends it at
 * once. Commands get the signal as an AbortSignal so that they close what they opened:
 * stdio servers run in process groups of their own and do not see the terminal's Ctrl-C.
 */
const SHUTDOWN_DEADLINE_MS = 5_000;

function shutdownSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.stderr.write(`mcp-drift: second ${signal}, exiting now\n`);
      process.exit(130);
    }
    controller.abort();
    setTimeout(() => {
      process.stderr.write('mcp-drift: shutdown took longer than 5 s, exiting\n');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return controller.signal;
}

/**
 * Resolves once everything written to the stream so far has reached the OS. A pipe takes
 * 64 KiB at a time: exiting with more queued cuts the output there.
 * Writes complete in order, so an empty write's callback comes after all earlier ones.
 */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

void runCommand(process.argv.slice(2), { signal: shutdownSignal() }).then(async (code) => {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
});
