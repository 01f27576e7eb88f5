// `node scripts/replay-dockerfile.mjs`: builds the image's files without a container engine
// and checks that they run. CI has no engine that could pull a base image, so each stage of
// the Dockerfile is replayed as written in a directory of its own standing for the stage's
// filesystem: COPY from the build context (less what .dockerignore leaves out) or from an
// earlier stage, WORKDIR, ENV and RUN, in order. Then the final stage's ENTRYPOINT and CMD
// are started with its ENV, as its USER, and must answer the HEALTHCHECK, render the
// console, and run `mcp-drift server list`. Exits 1 on the first step that fails.
//
// What differs from an engine, and why the check still holds:
// - The base image is this machine: its node and npm (the image's are the same major
//   version), at /usr/local/bin as in the official node images, whose user `node` is
//   uid/gid 1000; a chown to it and USER node use those ids.
// - An absolute path in a step (/app, /usr/local/bin, /var/lib/…) is taken inside the
//   stage's directory, and so is an ENV value that is an absolute path.
// - The npm cache is the replay's own (a RUN that cleans it cleans only that), seeded with
//   hard links to this machine's cache when it can be, so that npm ci fetches little.
// - HTTP_PORT is a free port of this machine, and MCP_DRIFT_HOME is inside the final
//   stage's directory (the one the image creates and gives to its user).
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const context = fileURLToPath(new URL('..', import.meta.url));
/** The official node images' unprivileged user. */
const BASE_USERS = { node: { uid: 1000, gid: 1000 } };
const STEP_TIMEOUT_MS = 10 * 60_000;

/** The Dockerfile's instructions, by stage: continuation lines joined, comments dropped. */
function parseDockerfile(text) {
  const lines = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  if (pending !== '') lines.push(pending.trim());
  const stages = [];
  for (const line of lines) {
    const [, instruction, rest] = /^(\S+)\s*(.*)$/.exec(line);
    const name = instruction.toUpperCase();
    if (name === 'FROM') {
      const [image, as, alias] = rest.split(/\s+/);
      stages.push({
        image,
        name: as?.toUpperCase() === 'AS' ? alias : String(stages.length),
        steps: [],
      });
    } else if (stages.length === 0) {
      throw new Error(`${name} before any FROM`);
    } else {
      stages.at(-1).steps.push({ instruction: name, args: rest });
    }
  }
  return stages;
}

/** `--from=build /app/dist ./dist` as flags and words. */
function copyArgs(args) {
  const words = args.split(/\s+/).filter(Boolean);
  const flags = Object.fromEntries(
    words.filter((w) => w.startsWith('--')).map((w) => w.slice(2).split('=')),
  );
  const paths = words.filter((w) => !w.startsWith('--'));
  return { flags, sources: paths.slice(0, -1), destination: paths.at(-1) };
}

/** `ENV A=1 B="two"`: the pairs, quotes taken off. */
function envPairs(args) {
  const pairs = {};
  for (const match of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    pairs[match[1]] = match[2].startsWith('"') ? JSON.parse(match[2]) : match[2];
  }
  return pairs;
}

/** .dockerignore as a predicate on paths relative to the context (last match decides). */
function dockerignore(text) {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const keep = line.startsWith('!');
      const pattern = path.posix.normalize((keep ? line.slice(1) : line).replace(/^\/+/, ''));
      const source = pattern
        .split('/')
        .map((part) =>
          part === '**'
            ? '.*'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/');
      return { keep, regex: new RegExp(`^${source}$`) };
    });
  return (relative) => {
    const parts = relative.split('/');
    let ignored = false;
    for (const rule of rules) {
      // A pattern matching a folder takes what is inside it.
      for (let i = 1; i <= parts.length; i++) {
        if (rule.regex.test(parts.slice(0, i).join('/'))) {
          ignored = !rule.keep;
          break;
        }
      }
    }
    return ignored;
  };
}

/** Every file under a folder, as paths relative to it. */
function filesUnder(dir, prefix = '') {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(dir, relative) : [relative];
  });
}

function main() {
  const started = Date.now();
  const stages = parseDockerfile(readFileSync(path.join(context, 'Dockerfile'), 'utf8'));
  const ignorePath = path.join(context, '.dockerignore');
  const ignored = existsSync(ignorePath)
    ? dockerignore(readFileSync(ignorePath, 'utf8'))
    : () => false;
  const work = mkdtempSync(path.join(tmpdir(), 'mcp-drift-image-'));
  chmodSync(work, 0o755);
  const npmCache = seedNpmCache(work);
  const roots = new Map();
  let serve;
  const finish = async (failure) => {
    if (serve && serve.exitCode === null) {
      serve.kill('SIGKILL');
      await new Promise((resolve) => serve.once('exit', resolve));
    }
    rmSync(work, { recursive: true, force: true });
    if (failure) {
      console.error(`replay-dockerfile: ${failure.message}`);
      process.exitCode = 1;
    } else {
      console.log(`replay-dockerfile: ok in ${seconds(started)}`);
    }
  };

  const run = async () => {
    let final;
    for (const stage of stages) {
      const root = path.join(work, `stage-${stage.name}`);
      baseImage(root);
      roots.set(stage.name, root);
      final = { stage, root, env: {}, workdir: '/', user: undefined };
      console.log(`replay-dockerfile: FROM ${stage.image} AS ${stage.name}`);
      for (const step of stage.steps) {
        const at = Date.now();
        replayStep(final, step, { ignored, roots, npmCache });
        if (['RUN', 'COPY'].includes(step.instruction)) {
          console.log(`  ${step.instruction} ${step.args} (${seconds(at)})`);
        }
      }
    }
    serve = await startFinalStage(final);
  };
  run().then(
    () => finish(),
    (error) => finish(error),
  );
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** What the stage's base image brings that the steps use: node and npm on the PATH. */
function baseImage(root) {
  mkdirSync(path.join(root, 'usr', 'local', 'bin'), { recursive: true });
  symlinkSync(process.execPath, path.join(root, 'usr', 'local', 'bin', 'node'));
  mkdirSync(path.join(root, 'root'), { recursive: true });
  for (const [name, { uid, gid }] of Object.entries(BASE_USERS)) {
    mkdirSync(path.join(root, 'home', name), { recursive: true });
    if (process.getuid?.() === 0) chownSync(path.join(root, 'home', name), uid, gid);
  }
  // The replay's directories stand for a filesystem every user can read, as an image's.
  chmodSync(root, 0o755);
}

/**
 * A cache of the replay's own, seeded from this machine's npm cache: its content files are
 * named by their hash and never rewritten, so they are hard links (a `npm cache clean`
 * removes the links, not the machine's files); its index files are appended to, so they
 * are copies. Without a cache on this filesystem, npm fetches.
 */
function seedNpmCache(work) {
  const cache = path.join(work, 'npm-cache');
  const host = path.join(homedir(), '.npm', '_cacache');
  mkdirSync(path.join(cache, '_cacache'), { recursive: true });
  if (!existsSync(path.join(host, 'content-v2'))) return cache;
  const copied = [
    ['-al', 'content-v2'],
    ['-r', 'index-v5'],
  ].every(
    ([how, part]) =>
      spawnSync('cp', [how, path.join(host, part), path.join(cache, '_cacache', part)], {
        stdio: 'ignore',
      }).status === 0,
  );
  if (!copied) rmSync(path.join(cache, '_cacache'), { recursive: true, force: true });
  console.log(`replay-dockerfile: npm cache ${copied ? 'seeded from' : 'not seeded from'} ${host}`);
  return cache;
}

/** A path of the image, inside the stage's directory. */
function inStage(root, workdir, file) {
  return path.join(root, path.posix.isAbsolute(file) ? file : path.posix.join(workdir, file));
}

/** The stage's ENV as a process gets it: its absolute paths inside the stage's directory. */
function processEnv(state, extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries({ ...state.env, ...extra })) {
    env[key] = value.startsWith('/') ? path.join(state.root, value) : value;
  }
  return {
    ...env,
    PATH: `${path.join(state.root, 'usr', 'local', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: state.user ? path.join(state.root, 'home', state.user) : path.join(state.root, 'root'),
  };
}

/** A RUN's shell command with the image's absolute paths and users made this machine's. */
function localCommand(state, command) {
  return command
    .replace(
      /(^|[\s=])(\/(?!dev\/)[\w./-]+)/g,
      (_, before, file) => `${before}${path.join(state.root, file)}`,
    )
    .replace(/\bchown\s+(\w+)(?::(\w+))?/g, (whole, user, group) => {
      const known = BASE_USERS[user];
      if (!known) return whole;
      return `chown ${known.uid}${group ? `:${BASE_USERS[group]?.gid ?? group}` : ''}`;
    });
}

function replayStep(state, step, { ignored, roots, npmCache }) {
  const { instruction, args } = step;
  switch (instruction) {
    case 'WORKDIR':
      state.workdir = path.posix.resolve(state.workdir, args);
      mkdirSync(inStage(state.root, '/', state.workdir), { recursive: true });
      return;
    case 'ENV':
      Object.assign(state.env, envPairs(args));
      return;
    case 'USER':
      if (!BASE_USERS[args]) throw new Error(`USER ${args}: not a user of the base image`);
      state.user = args;
      return;
    case 'COPY':
      return copy(state, args, { ignored, roots });
    case 'RUN': {
      const result = spawnSync('/bin/sh', ['-c', localCommand(state, args)], {
        cwd: inStage(state.root, '/', state.workdir),
        // Offline first: what the seeded cache holds is not asked of the registry again.
        env: {
          ...processEnv(state),
          npm_config_cache: npmCache,
          npm_config_prefer_offline: 'true',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
        timeout: STEP_TIMEOUT_MS,
      });
      if (result.status !== 0) {
        throw new Error(`stage ${state.stage.name}: RUN ${args} exited ${result.status}`);
      }
      return;
    }
    case 'EXPOSE':
    case 'HEALTHCHECK':
    case 'ENTRYPOINT':
    case 'CMD':
      state[instruction] = args;
      return;
    default:
      throw new Error(`${instruction}: not an instruction this replay knows`);
  }
}

function copy(state, args, { ignored, roots }) {
  const { flags, sources, destination } = copyArgs(args);
  const fromStage = flags.from;
  const from = fromStage === undefined ? context : roots.get(fromStage);
  if (from === undefined) throw new Error(`COPY --from=${fromStage}: no such stage before`);
  const target = inStage(state.root, state.workdir, destination);
  const intoFolder = destination.endsWith('/') || sources.length > 1;
  for (const source of sources) {
    const file = fromStage === undefined ? path.join(from, source) : inStage(from, '/', source);
    const relative = path.relative(context, file).split(path.sep).join('/');
    const missing = !existsSync(file) || (fromStage === undefined && ignored(relative));
    if (missing) {
      const why = existsSync(file) ? ' (.dockerignore leaves it out of the context)' : '';
      throw new Error(`stage ${state.stage.name}: COPY ${source}: not found${why}`);
    }
    const isFolder = lstatSync(file).isDirectory();
    const into = intoFolder && !isFolder ? path.join(target, path.basename(source)) : target;
    if (!isFolder) {
      mkdirSync(path.dirname(into), { recursive: true });
      cpSync(file, into, { verbatimSymlinks: true });
    } else if (fromStage !== undefined) {
      cpSync(file, into, { recursive: true, verbatimSymlinks: true });
    } else {
      for (const inner of filesUnder(file)) {
        if (ignored(`${relative}/${inner}`)) continue;
        mkdirSync(path.dirname(path.join(into, inner)), { recursive: true });
        cpSync(path.join(file, inner), path.join(into, inner), { verbatimSymlinks: true });
      }
    }
  }
}

/** ["a", "b"] or a shell form, as argv. */
function execForm(args) {
  if (args === undefined) return [];
  return args.trim().startsWith('[') ? JSON.parse(args) : ['/bin/sh', '-c', args];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The final stage's process, as its user, once it answers; throws what it does not. */
async function startFinalStage(state) {
  const at = Date.now();
  const port = String(await freePort());
  const env = processEnv(state, { HTTP_PORT: port });
  const user = state.user ? BASE_USERS[state.user] : undefined;
  const asUser = user && process.getuid?.() === 0 ? { uid: user.uid, gid: user.gid } : {};
  const command = [...execForm(state.ENTRYPOINT), ...execForm(state.CMD)];
  const [program, ...programArgs] = command;
  const executable = existsSync(path.join(state.root, 'usr', 'local', 'bin', program))
    ? path.join(state.root, 'usr', 'local', 'bin', program)
    : program;
  const cwd = inStage(state.root, '/', state.workdir);
  console.log(`replay-dockerfile: starting ${command.join(' ')} on port ${port}`);
  const serve = spawn(executable, programArgs, {
    cwd,
    env,
    ...asUser,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  serve.stderr.on('data', (chunk) => (stderr += chunk));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (serve.exitCode !== null) throw new Error(`serve exited ${serve.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`no answer on /healthz in 180 s: ${stderr}`);
    const answered = await fetch(`${base}/healthz`).then(
      (response) => response.status,
      () => undefined,
    );
    if (answered === 200) break;
    await sleep(250);
  }
  console.log(`  /healthz answered 200 (${seconds(at)})`);

  // The image's own HEALTHCHECK command, as the engine would run it.
  const check = /CMD\s+(.*)$/s.exec(state.HEALTHCHECK ?? '')?.[1];
  if (check) {
    const [checkProgram, ...checkArgs] = execForm(check);
    const healthy = spawnSync(checkProgram, checkArgs, { cwd, env, ...asUser, timeout: 30_000 });
    if (healthy.status !== 0) throw new Error(`HEALTHCHECK exited ${healthy.status}`);
    console.log('  HEALTHCHECK exited 0');
  }

  // The console's pages are rendered from the bundle and styled from console-assets/.
  const token = readFileSync(path.join(env.MCP_DRIFT_HOME, 'console-token'), 'utf8').trim();
  const page = await fetch(`${base}/`, { headers: { authorization: `Bearer ${token}` } });
  const html = await page.text();
  if (page.status !== 200 || !html.includes('<html')) {
    throw new Error(`the console's first page answered ${page.status}: ${html.slice(0, 200)}`);
  }
  const styles = /href="(\/[^"]+\.css)"/.exec(html)?.[1];
  if (styles) {
    const css = await fetch(`${base}${styles}`, { headers: { authorization: `Bearer ${token}` } });
    if (css.status !== 200) throw new Error(`the console's stylesheet answered ${css.status}`);
  }
  console.log("  the console's first page rendered");

  const cli = (...args) =>
    spawnSync(executable, args, { cwd, env, ...asUser, encoding: 'utf8', timeout: 60_000 });
  const added = cli('server', 'add', 'replayed', '--url', 'http://127.0.0.1:9/mcp');
  if (added.status !== 0) throw new Error(`server add exited ${added.status}: ${added.stderr}`);
  const listed = cli('server', 'list');
  if (listed.status !== 0 || !listed.stdout.includes('replayed')) {
    throw new Error(`server list exited ${listed.status}: ${listed.stdout}${listed.stderr}`);
  }
  console.log('  mcp-drift server add and server list ran through serve');

  serve.kill('SIGTERM');
  const code = await new Promise((resolve) => serve.once('exit', resolve));
  if (code !== 0) throw new Error(`serve exited ${code} on SIGTERM: ${stderr}`);
  console.log(`  serve stopped on SIGTERM with 0 (${seconds(at)})`);
  return serve;
}

main();
