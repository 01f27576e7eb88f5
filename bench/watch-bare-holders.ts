import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stopChild, track } from './watch-fixtures.js';
import { sampleProcess } from './watch-monitor.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/bare-holders.mjs', import.meta.url));

export interface BareHolding {
  /** The process with the SDK loaded and nothing connected, and with every session held. */
  idleRss: number;
  fullRss: number;
  held: number;
  failed: number;
  holdMs: number;
}

/**
 * What bare SDK clients cost for holding the same sessions (bench/fixtures/bare-holders.mjs),
 * sampled as serve is: idle first, then once every session is held and the burst is over.
 */
export async function measureBareHolders(
  urls: string[],
  options: { concurrency: number; settleMs: number; sampleSeconds: number; timeoutMs: number },
): Promise<BareHolding> {
  const child = track(spawn(process.execPath, [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const lines = createInterface({ input: child.stdout! });
  const nextLine = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`bare holders: no ${prefix} line in time`)),
        options.timeoutMs,
      );
      const onLine = (line: string) => {
        if (!line.startsWith(prefix)) return;
        clearTimeout(timer);
        lines.off('line', onLine);
        resolve(line.slice(prefix.length).trim());
      };
      lines.on('line', onLine);
      child.once('exit', (code) => reject(new Error(`bare holders exited (${code})`)));
    });
  try {
    await nextLine('READY');
    await sleep(3_000);
    const idle = await sampleProcess(child.pid!, 3);
    const started = performance.now();
    const held = nextLine('HELD');
    child.stdin!.write(`${JSON.stringify({ urls, concurrency: options.concurrency })}\n`);
    const result = JSON.parse(await held) as { held: number; failed: number };
    const holdMs = performance.now() - started;
    await sleep(options.settleMs);
    const full = await sampleProcess(child.pid!, options.sampleSeconds);
    return { idleRss: idle.rss, fullRss: full.rss, ...result, holdMs };
  } finally {
    // Ending stdin makes it end every session (so the fixtures forget them) and exit.
    child.stdin!.end();
    const exited = once(child, 'exit');
    await Promise.race([exited, sleep(30_000)]);
    await stopChild(child, 1_000);
  }
}
