import { sanitizeForTerminal } from '../text/terminal-text.js';
import type { HostContext } from '../registry/host-configs.js';
import { importServers, readImportSources, type ImportReport } from '../registry/import-servers.js';
import { Problems } from '../problems.js';
import type { CommandRun } from './command-run.js';
import { hostContextOf, hostFlag, shownPath } from './host-context.js';
import { formatTable, printJson, printLine, printWarnings } from './output.js';
import { checkEarly } from './early-checks.js';

/** Imported entries a host may reach through the gateway: registered now, as the file says. */
const WRAPPED = new Set(['added', 'updated', 'unchanged']);

/**
 * `--wrap`: each file's config with its imported servers routed through the gateway, on
 * stdout (one file: its config; several: an object of configs by path). `--write`: the
 * changed lines of each file, then the file rewritten (as plain JSON: comments are lost).
 */
async function printWrapped(report: ImportReport, write: boolean): Promise<void> {
  const { readFile, writeFile } = await import('node:fs/promises');
  const { parseJsonSource } = await import('../json-source.js');
  const { wrapHostConfig } = await import('../registry/wrap-config.js');
  const byFile = new Map<string, Map<string, string>>();
  for (const server of report.servers) {
    if (!WRAPPED.has(server.status)) continue;
    const names = byFile.get(server.source) ?? new Map<string, string>();
    names.set(server.entry, server.name);
    byFile.set(server.source, names);
  }
  const configs: Record<string, unknown> = {};
  for (const [file, names] of byFile) {
    const text = await readFile(file, 'utf8');
    const before = parseJsonSource(text, { comments: true }).value;
    const after = wrapHostConfig(before, names);
    configs[file] = after;
    if (!write) continue;
    const old = JSON.stringify(before, null, 2).split('\n');
    const next = `${JSON.stringify(after, null, 2)}\n`;
    printLine(`--- ${file}`);
    printLine(`+++ ${file}`);
    for (const line of old) if (!next.split('\n').includes(line)) printLine(`-${line}`);
    for (const line of next.trimEnd().split('\n')) if (!old.includes(line)) printLine(`+${line}`);
    if (report.dryRun) continue;
    await writeFile(file, next);
  }
  if (write) return;
  const files = Object.keys(configs);
  printJson(files.length === 1 ? configs[files[0]!] : configs);
}

/** `mcp-drift server import [FILE…]`: see importServers. */
export async function serverImportCommand(run: CommandRun): Promise<void> {
  const files = (run.args[0] ?? []) as unknown as string[];
  const opts = run.opts as {
    from?: string;
    dryRun?: boolean;
    prefix?: string;
    update?: boolean;
    trustProject?: boolean;
    check?: boolean;
    json?: boolean;
    wrap?: boolean;
    write?: boolean;
  };
  const problems = new Problems();
  const from = hostFlag(problems, opts.from);
  if (opts.prefix !== undefined && opts.prefix.trim() === '') {
    problems.add('USAGE', 'invalid --prefix "": give the text each name starts with');
  }
  problems.throwIfAny();
  const ctx = await run.context();
  const context = hostContextOf(ctx.env);
  // Every file is read and checked before the database is opened: a malformed one stops
  // the import with nothing written.
  const plan = await readImportSources({ files, from, prefix: opts.prefix, context });
  // A project's file waits for --trust-project: its URLs are not fetched before then either.
  const candidates = plan.entries.flatMap((entry) =>
    entry.spec && (entry.file.scope === 'user' || opts.trustProject === true) ? [entry.spec] : [],
  );
  const early = await checkEarly(ctx, candidates, opts.check === true);
  const report = await ctx.withDatabase((db) =>
    importServers(db, plan, {
      dryRun: opts.dryRun === true,
      update: opts.update === true,
      trustProject: opts.trustProject === true,
    }),
  );
  for (const server of report.dryRun ? [] : report.servers) {
    if (server.status === 'added' || server.status === 'updated') {
      (await ctx.logger()).info(
        { server: server.name, source: server.source },
        `server ${server.status}`,
      );
    }
  }
  const written = new Set(
    report.servers
      .filter((server) => server.status === 'added' || server.status === 'updated')
      .map((server) => server.name),
  );
  if (opts.wrap === true || opts.write === true) await printWrapped(report, opts.write === true);
  else if (opts.json) printJson(report);
  else printReport(report, context);
  printWarnings(early.filter((problem) => written.has(problem.server)));
}

function printReport(report: ImportReport, context: HostContext): void {
  printLine('Host configs:');
  printLine(
    formatTable(
      ['HOST', 'SCOPE', 'FILE', 'SERVERS'],
      report.sources.map((source) => [
        source.host,
        source.scope,
        shownPath(source.path, context),
        source.found ? String(source.servers) : 'not found',
      ]),
    )
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n'),
  );
  printLine();
  if (report.servers.length === 0) {
    printLine('no server entries in the files found');
    return;
  }
  printLine(
    formatTable(
      ['NAME', report.dryRun ? 'WOULD BE' : 'STATUS', 'TRANSPORT', 'TARGET', 'FROM'],
      report.servers.map((server) => [
        server.name,
        server.status,
        server.transport ?? '-',
        server.target ?? '-',
        `${shownPath(server.source, context)}:${server.line}${server.entry === server.name ? '' : ` (${server.entry})`}`,
      ]),
    ),
  );
  // A project's stdio commands run as the operator: each is shown whole, before or as it is
  // registered, so that what a repository asks to run is read, not guessed from a name.
  const commands = report.servers.filter(
    (server) => server.scope === 'project' && server.transport === 'stdio',
  );
  if (commands.length > 0) {
    printLine();
    printLine('Commands from this project’s files (each runs as you on every probe):');
    for (const server of commands) {
      printLine(
        `  ${sanitizeForTerminal(server.name)} (${server.status}): ${sanitizeForTerminal(server.target ?? '')}`,
      );
    }
  }
  // Notes of an entry imported before were printed then.
  const news = report.servers.filter(
    (server) => !['unchanged', 'duplicate'].includes(server.status),
  );
  const remarks = news.flatMap((server) => [
    ...(server.reason ? [`${server.name}: ${server.status}: ${server.reason}`] : []),
    ...server.secrets.map((secret) => `${server.name}: ${secret.field}: ${secret.advice}`),
    ...server.notes.map((note) => `${server.name}: ${note}`),
  ]);
  if (remarks.length > 0) {
    printLine();
    for (const remark of remarks) printLine(sanitizeForTerminal(remark));
  }
  const counts = new Map<string, number>();
  for (const server of report.servers)
    counts.set(server.status, (counts.get(server.status) ?? 0) + 1);
  printLine();
  printLine(
    `${[...counts].map(([status, count]) => `${count} ${status}`).join(', ')}` +
      (report.dryRun ? ' (dry run: nothing was written)' : ''),
  );
}
