// Preloaded (`node -r`) into each process the cli bench starts: at exit, appends the
// process's own CPU time (user + system, microseconds since it started) to the file
// CPU_AT_EXIT names. Unlike wall time, it hardly moves when other work shares the cores.
// A CommonJS preload, because `--import` would start the ES module loader in bare node too.
const { appendFileSync } = process.getBuiltinModule('node:fs');

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  appendFileSync(process.env.CPU_AT_EXIT, `${user + system}\n`);
});
