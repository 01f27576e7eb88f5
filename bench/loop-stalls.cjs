// Preloaded (`node -r`) into serve by the hostile bench: records how long serve's event loop
// was held. A 10 ms timer that fires late by more than LOOP_STALL_MS (300) appends one line
// `{"at":…,"ms":…}` to the file LOOP_STALLS names, when it happens (serve may be killed);
// every second the line `{"max":…,"p99":…}` of perf_hooks' event-loop delay histogram since
// the start replaces the file LOOP_STALLS names with ".summary" appended.
const { appendFileSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { monitorEventLoopDelay } = process.getBuiltinModule('node:perf_hooks');

const file = process.env.LOOP_STALLS;
if (file) {
  const threshold = Number(process.env.LOOP_STALL_MS ?? 300);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const every = 10;
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - last - every;
    last = now;
    if (late > threshold) {
      appendFileSync(file, `${JSON.stringify({ at: Date.now() - late, ms: Math.round(late) })}\n`);
    }
  }, every).unref();
  setInterval(() => {
    const ms = (ns) => Math.round(ns / 1e6);
    writeFileSync(
      `${file}.summary`,
      JSON.stringify({ max: ms(histogram.max), p99: ms(histogram.percentile(99)) }),
    );
  }, 1000).unref();
}
