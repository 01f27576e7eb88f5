// The small process serve starts stdio servers through (src/mcp/spawn-helper.ts says why).
// It is started once, while serve is small, and stays small: node's spawn forks the caller
// and waits for the child to exec, which froze serve's event loop for hundreds of
// milliseconds once serve held the embedded database (docs/watch-service.md, "Hostile load").
//
// Over the IPC channel it takes { type: 'spawn', id, command, args, env, cwd } and answers
// { type: 'spawned', id, pid }, then the child's stdin, stdout and stderr as handles
// ({ type: 'stdio', id, fd }), and { type: 'exit', id, code, signal } when it exits; or
// { type: 'error', id, error } when it could not start. Plain CommonJS run by node itself,
// so that the same file works from src/ in tests and from dist/.
'use strict';
const { spawn } = process.getBuiltinModule('node:child_process');

/** pid → child, to end every process group when serve goes. */
const children = new Map();

function send(message, handle) {
  if (process.connected) process.send(message, handle);
}

function start({ id, command, args, env, cwd }) {
  let child;
  try {
    child = spawn(command, args, {
      env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // The child leads its own process group: closing it signals the whole group.
      detached: true,
      shell: false,
      windowsHide: true,
    });
  } catch (error) {
    send({ type: 'error', id, error: describe(error) });
    return;
  }
  if (child.pid === undefined) {
    child.once('error', (error) => send({ type: 'error', id, error: describe(error) }));
    return;
  }
  // node started reading the child's output into this process: stop, in the same tick, so
  // that every byte is read by serve from the handle it is sent.
  for (const stream of [child.stdout, child.stderr]) {
    stream._handle.reading = false;
    stream._handle.readStop();
  }
  const pid = child.pid;
  children.set(pid, child);
  child.on('error', () => {});
  // Handles go one at a time (each waits for serve's acknowledgement), so these may still
  // be queued when the child exits, and at its exit node destroys a child's stdin and
  // resumes its unread stdout and stderr (reading into this process what serve must read):
  // taken off the child, they stay as they are until they are sent.
  const { stdin, stdout, stderr } = child;
  child.stdin = null;
  child.stdout = null;
  child.stderr = null;
  child.stdio.fill(null);
  send({ type: 'spawned', id, pid });
  send({ type: 'stdio', id, fd: 0 }, stdin);
  send({ type: 'stdio', id, fd: 1 }, stdout);
  send({ type: 'stdio', id, fd: 2 }, stderr);
  child.once('exit', (code, signal) => {
    children.delete(pid);
    send({ type: 'exit', id, code, signal });
  });
}

function describe(error) {
  return {
    message: error.message,
    code: error.code,
    errno: error.errno,
    syscall: error.syscall,
    path: error.path,
  };
}

process.on('message', (message) => {
  if (message && message.type === 'spawn') start(message);
});

// serve is gone (stopped, or killed): no server it started may outlive it.
process.on('disconnect', () => {
  for (const pid of children.keys()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is already empty.
    }
  }
  process.exit(0);
});
