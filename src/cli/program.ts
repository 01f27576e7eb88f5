import { Command, Option } from 'commander';
import { DriftError } from '../errors.js';
import type { CommandAction, CommandRun } from './command-run.js';
import { packageVersion } from './version.js';

/*
 * The whole command line: every command, its arguments, flags, help and examples. Each
 * command's code is imported only when it runs, so that `--help`, `--version` and `diff`
 * never load the database drivers, the watch service or the mailer (docs/cli.md: a fast start).
 * Nothing here may import more than commander: this file is loaded on every call.
 */

/** How run-cli.ts hands a command what it needs beyond its flags. */
export interface RunSupport {
  rest: string[] | undefined;
  context: CommandRun['context'];
}

const LEVELS = 'critical, high, medium, low or info';
const TRUST = 'trusted, partial or untrusted';
const ALERT_STATUSES = 'pending, sent, failed, undeliverable or acknowledged';
const CHANNELS = 'email, slack or webhook';
const LOCKFILE = 'mcp-drift.lock.json';
const HOSTS = 'claude-desktop, claude-code, cursor, vscode or windsurf';

/**
 * Repeated flags (`--header A=1 --header B=2`) collect into a list; after a negation
 * (`--no-also-as`, which commander stores as false) the list starts afresh.
 */
const collect = (value: string, previous: string[] | false | undefined): string[] => [
  ...(Array.isArray(previous) ? previous : []),
  value,
];

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

function jsonFlag(command: Command): Command {
  return command.option('--json', 'print one JSON document on stdout (logs go to stderr)');
}

/** The findings commands print text, JSON, or SARIF for code-scanning dashboards. */
function formatFlags(command: Command): Command {
  return jsonFlag(
    command.option(
      '--format <FORMAT>',
      'text (the default), json (as --json) or sarif (SARIF 2.1.0, for code scanning)',
    ),
  );
}

export function buildProgram(support: RunSupport): Command {
  /** The action of a command: its module is imported when, and only when, it runs. */
  const lazy: Lazy =
    (load, options = {}) =>
    async (...params: unknown[]): Promise<void> => {
      const command = params.at(-1) as Command;
      if (support.rest !== undefined && !options.commandLine) {
        throw new DriftError(
          'USAGE',
          `${command.parent?.parent ? `${command.parent.name()} ` : ''}${command.name()}: nothing follows -- here; only server add and server edit take a command line after it`,
        );
      }
      const action = await load();
      await action({
        args: command.processedArgs as (string | undefined)[],
        opts: command.opts(),
        rest: support.rest,
        context: support.context,
      });
    };

  const program = new Command('mcp-drift')
    .description(
      'Watches MCP servers’ tool listings and tells operators when a change alters how hosts gate tool calls.',
    )
    .version(packageVersion(), '-V, --version', 'print the version of mcp-drift')
    .helpOption('-h, --help', 'show the help of a command')
    .helpCommand('help [COMMAND...]', 'show the help of a command (e.g. mcp-drift help server add)')
    .option('--verbose', 'print the stack trace of an unexpected error (anywhere before --)')
    .configureHelp({
      // 80 columns on every terminal: the pages read the same in a pipe, a log and the docs.
      helpWidth: 80,
      showGlobalOptions: true,
      // `check <NAME>`: every command has options, so "[options]" says nothing in a list.
      subcommandTerm: (command) =>
        [
          command.name(),
          ...command.registeredArguments.map((argument) =>
            argument.required ? `<${argument.name()}>` : `[${argument.name()}]`,
          ),
        ].join(' '),
    })
    .addHelpText(
      'after',
      `
Every listing command takes --json. Configuration comes from the environment or a .env file
(see README.md). Exit codes: 0 ok; 1 --fail-on threshold reached or an unexpected error;
2 bad usage or bad input; 3 not found or conflict; 4 database, server or mail unreachable;
130 interrupted.`,
    );

  program
    .command('serve')
    .summary('run the service (migrates first)')
    .description(
      'Run the service until SIGINT or SIGTERM: watch every enabled server, record changes, send alerts, and serve health and metrics on HTTP_HOST:HTTP_PORT. Applies pending migrations first.',
    )
    .addHelpText('after', examples('mcp-drift serve', 'DATABASE_URL=postgres://… mcp-drift serve'))
    .action(lazy(async () => (await import('./serve-command.js')).serveCommand));

  program
    .command('console-url')
    .summary('print a fresh login link for the console')
    .description(
      'Print a new one-time login link for the operator console of the serve running on this MCP_DRIFT_HOME (it works once, for 15 minutes). Asks that serve for it with the console token; fails when no serve is running.',
    )
    .addHelpText('after', examples('mcp-drift console-url'))
    .action(lazy(async () => (await import('./console-url-command.js')).consoleUrlCommand));

  jsonFlag(
    program
      .command('migrate')
      .summary('apply database migrations')
      .description('Apply pending database migrations (every command opening the database does).'),
  )
    .addHelpText('after', examples('mcp-drift migrate'))
    .action(lazy(async () => (await import('./migrate-command.js')).migrateCommand));

  addServerCommands(program, lazy);

  formatFlags(
    program
      .command('check')
      .summary('list a server now, diff it against its baseline, print')
      .description(
        'Connect as a new host would, list every page, record the observation (and a change if the listing differs from the previous one), and print the findings against the approved baseline. The first successful listing becomes the baseline.',
      )
      .argument('<NAME>', 'a registered server')
      .option('--fail-on <LEVEL>', `exit 1 when the severity reaches LEVEL (${LEVELS})`),
  )
    .addHelpText(
      'after',
      examples('mcp-drift check fs', 'mcp-drift check fs --fail-on high --json'),
    )
    .action(lazy(async () => (await import('./check-command.js')).checkCommand));

  program
    .command('gateway')
    .summary('serve a host the approved definitions of a server, over stdio')
    .description(
      'An MCP server a host launches instead of the real one: it holds a session to server NAME, lists the approved definitions (the baseline, or with --lock the lockfile), forwards calls to unchanged tools, and refuses or withholds changed ones per GATEWAY_POLICY. Approvals reach the host as list_changed. See docs/gateway.md.',
    )
    .argument('<NAME>', 'the registered server (or, with --lock, the locked one)')
    .option('--lock <FILE>', `serve this lockfile's definitions, without a database (${LOCKFILE})`)
    .addHelpText(
      'after',
      examples('mcp-drift gateway fs', `mcp-drift gateway fs --lock ${LOCKFILE}`),
    )
    .action(lazy(async () => (await import('./gateway-command.js')).gatewayCommand));

  formatFlags(
    program
      .command('diff')
      .summary('offline diff of two listing files')
      .description(
        'Diff two listings without a database: each file is a tools/list result ({"tools":[…]}) or a JSON array of tools.',
      )
      .argument('<BEFORE.json>', 'the earlier listing')
      .argument('<AFTER.json>', 'the later listing')
      .option(
        '--trust <LEVEL>',
        `what the findings say hosts do with the hints (${TRUST}; default untrusted)`,
      )
      .option('--fail-on <LEVEL>', `exit 1 when the severity reaches LEVEL (${LEVELS})`),
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift diff before.json after.json',
        'mcp-drift diff before.json after.json --json --fail-on high',
      ),
    )
    .action(lazy(async () => (await import('./diff-command.js')).diffCommand));

  jsonFlag(
    program
      .command('lock')
      .summary('list servers now and write their listings to a lockfile, for verify in CI')
      .description(
        'List each server of the host configs given (or, without --config, of the registry) and write what it lists to the lockfile: per server the canonical listing, its hash, the server’s name and version and the protocol version, one tool per block. An existing lock is kept as reviewed: new servers are added, and --update accepts every current listing. Needs no database with --config.',
      )
      .option(
        '--config <FILE>',
        'a host config (.mcp.json, .vscode/mcp.json…); repeat for more',
        collect,
      )
      .option('--out <FILE>', `the lockfile (default ${LOCKFILE})`)
      .option('--update', 'accept the current listings, and drop servers no longer configured')
      .option(
        '--keep-going',
        'write the servers that answered when some do not (a failed one keeps its lock), and still exit non-zero',
      )
      .option(
        '--fail-on <LEVEL>',
        `exit 1 when a listing locked for the first time has content findings reaching LEVEL (${LEVELS})`,
      ),
  )
    .addHelpText(
      'after',
      examples('mcp-drift lock --config .mcp.json', 'mcp-drift lock --config .mcp.json --update'),
    )
    .action(lazy(async () => (await import('./lock-command.js')).lockCommand));

  formatFlags(
    program
      .command('verify')
      .summary('list locked servers now and diff each against the lockfile (CI, no database)')
      .description(
        'List each server again and diff its listing against the lockfile with the engine diff uses. The servers are those of --config, or else of the host configs the lockfile names. Exits 1 when --fail-on is reached (high unless given; none never fails), 3 when a configured server is not in the lock, 4 when one cannot be listed. Needs no database.',
      )
      .option('--lock <FILE>', `the lockfile (default ${LOCKFILE})`)
      .option('--config <FILE>', 'a host config to take the servers from; repeat for more', collect)
      .option(
        '--fail-on <LEVEL>',
        `exit 1 when the severity reaches LEVEL (${LEVELS}, or none; default high)`,
      ),
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift verify',
        'mcp-drift verify --fail-on none --format sarif > mcp-drift.sarif',
        'mcp-drift verify --config .mcp.json --format sarif > mcp-drift.sarif',
      ),
    )
    .action(lazy(async () => (await import('./lock-command.js')).verifyCommand));

  jsonFlag(
    program
      .command('history')
      .summary('a server’s observation runs (one per outcome), newest first, with their changes')
      .argument('<NAME>', 'a registered server')
      .option('--limit <N>', 'how many runs (default 50)'),
  )
    .addHelpText('after', examples('mcp-drift history fs --limit 10'))
    .action(lazy(async () => (await import('./history-command.js')).historyCommand));

  jsonFlag(
    program
      .command('changes')
      .summary('recorded changes, newest first')
      .option('--server <NAME>', 'only this server’s changes')
      .option('--severity <LEVEL>', `only changes at least this severe (${LEVELS})`)
      .option('--since <WHEN>', 'only changes since then: 24h, 7d, or a date such as 2026-12-01')
      .option('--kind <KIND>', 'only changes with a finding of this kind (e.g. annotation_relaxed)')
      .option('--limit <N>', 'how many changes (default 50)'),
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift changes',
        'mcp-drift changes --server fs --json',
        'mcp-drift changes --severity high --since 24h',
      ),
    )
    .action(lazy(async () => (await import('./changes-command.js')).changesCommand));

  const change = program
    .command('change')
    .summary('one recorded change (change show ID)')
    .description('One recorded change.');
  jsonFlag(
    change
      .command('show')
      .summary('one change: its findings, trust posture and stale-session exposure')
      .argument('<ID>', 'a change id, as `mcp-drift changes` lists them')
      // Not --verbose: that is the global flag for stack traces.
      .option('--details', 'also print each finding’s own interpretation record'),
  )
    .addHelpText(
      'after',
      examples('mcp-drift change show 12', 'mcp-drift change show 12 --details'),
    )
    .action(lazy(async () => (await import('./changes-command.js')).changeShowCommand));

  const alerts = program
    .command('alerts')
    .summary('the alert outbox (alerts list, ack ID, retry ID, test)')
    .description('The alert outbox.');
  jsonFlag(
    alerts
      .command('list')
      .summary('alerts, newest first, with each delivery’s status, tries and last error')
      .option('--status <STATUS>', `only alerts in this status (${ALERT_STATUSES})`)
      .option('--server <NAME>', 'only this server’s alerts')
      .option('--severity <LEVEL>', `only alerts at least this severe (${LEVELS})`)
      .option('--limit <N>', 'how many alerts (default 50)'),
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift alerts list --status failed',
        'mcp-drift alerts list --server fs --severity high',
      ),
    )
    .action(lazy(async () => (await import('./alerts-command.js')).alertsListCommand));
  jsonFlag(
    alerts
      .command('ack')
      .summary('mark alerts as seen (with a digest’s first alert, the whole message)')
      .description(
        'Mark alerts as seen by an operator: the ones named, or with --server every open alert of that server. Acknowledging the first alert of a digest acknowledges the whole message; an alert acknowledged before it was sent is not sent.',
      )
      .argument('[ID...]', 'alert ids, as `mcp-drift alerts list` lists them')
      .option('--server <NAME>', 'every alert of this server not yet acknowledged'),
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift alerts ack 7',
        'mcp-drift alerts ack 7 8 9',
        'mcp-drift alerts ack --server fs',
      ),
    )
    .action(lazy(async () => (await import('./alerts-command.js')).alertsAckCommand));
  jsonFlag(
    alerts
      .command('retry')
      .summary('send a failed or undeliverable alert again, once the cause is fixed')
      .description(
        'Queue the failed deliveries of an alert again, or, for an alert that had nobody to tell, deliveries to the destinations configured now. A running `mcp-drift serve` sends them.',
      )
      .argument('<ID>', 'an alert id, as `mcp-drift alerts list` lists them'),
  )
    .addHelpText('after', examples('mcp-drift alerts retry 7'))
    .action(lazy(async () => (await import('./alerts-command.js')).alertsRetryCommand));
  jsonFlag(
    alerts
      .command('test')
      .summary('send a test message through each configured channel and report each result')
      .description(
        'Send a test message through every configured channel (or one), now, and report each destination’s result. Exits 4 when one fails.',
      )
      .option('--channel <NAME>', `only this channel (${CHANNELS})`),
  )
    .addHelpText(
      'after',
      examples('mcp-drift alerts test', 'mcp-drift alerts test --channel slack'),
    )
    .action(lazy(async () => (await import('./alerts-command.js')).alertsTestCommand));

  const baseline = program
    .command('baseline')
    .summary('the approved listing (baseline show|diff|approve NAME)')
    .description('The listing a server’s changes are judged against.');
  jsonFlag(
    baseline
      .command('show')
      .summary('the approved listing’s tools and hints')
      .argument('<NAME>', 'a registered server'),
  )
    .addHelpText('after', examples('mcp-drift baseline show fs'))
    .action(lazy(async () => (await import('./baseline-command.js')).baselineShowCommand));
  jsonFlag(
    baseline
      .command('diff')
      .summary('every finding from the approved listing to the latest, graded as one change')
      .description(
        'The drift since approval: the diff from the baseline to the latest listing, however many changes lie between, graded by the same rules as one change (its severity is its worst finding). With --json: {server, baseline, latest, atBaseline, severity, findings}.',
      )
      .argument('<NAME>', 'a registered server'),
  )
    .addHelpText(
      'after',
      examples('mcp-drift baseline diff fs', 'mcp-drift baseline diff fs --json'),
    )
    .action(lazy(async () => (await import('./baseline-command.js')).baselineDiffCommand));
  jsonFlag(
    baseline
      .command('approve')
      .summary('approve the latest listing, or the one given, as the baseline')
      .description(
        'Show the current baseline (and who approved it), the listing to approve and every finding between the two, then ask "Approve? [y/N]" on the terminal. Without a terminal, pass --yes. With --json, the document holds {preview, approved}.',
      )
      .argument('<NAME>', 'a registered server')
      .option(
        '--hash <HASH>',
        'the latest listing, as reviewed (8 to 64 hex digits); refused (exit 3, nothing changed) if the latest listing is another',
      )
      .option('--listing <HASH>', 'an earlier listing to approve: 8 to 64 hex digits of its hash')
      .option('--ack-alerts', 'also acknowledge the open alerts of changes up to that listing')
      .option('-y, --yes', 'approve without asking (for scripts; required without a terminal)'),
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift baseline approve fs',
        'mcp-drift baseline approve fs --hash 3f2a9c01d4e5 --yes',
        'mcp-drift baseline approve fs --listing 3f2a9c01 --ack-alerts',
        'mcp-drift baseline approve fs --yes --json',
      ),
    )
    .action(lazy(async () => (await import('./baseline-command.js')).baselineApproveCommand));

  return program;
}

type Lazy = (
  load: () => Promise<CommandAction>,
  options?: { commandLine?: boolean },
) => (...params: unknown[]) => Promise<void>;

/** The flags of a registration, shared by `server add` and `server edit`. */
function registrationFlags(command: Command, editing: boolean): Command {
  command
    .option('--stdio', 'a stdio server: its command line follows --')
    .option(
      '--check',
      'refuse, writing nothing, when the command is not on PATH, the URL does not answer or a ${VAR} is unset (default: warn)',
    )
    .option('--url <URL>', 'a Streamable HTTP (or, with --transport sse, legacy SSE) endpoint')
    .option('--transport <KIND>', 'http (Streamable HTTP, the default) or sse (legacy HTTP+SSE)')
    .option('--header <K=V>', 'an HTTP header; repeat for more; write secrets as ${VAR}', collect)
    .option('--env <K=V>', 'an environment variable of a stdio server; repeat for more', collect)
    .option('--cwd <DIR>', 'the working directory of a stdio server')
    .option('--trust <LEVEL>', `trust posture: ${TRUST} (default untrusted)`)
    .option(
      '--schedule <CRON>',
      editing
        ? 'probe schedule, a cron expression; default: back to DEFAULT_SCHEDULE'
        : 'probe schedule, a cron expression (default DEFAULT_SCHEDULE)',
    )
    .option('--notify <EMAIL>', 'an alert recipient besides ALERT_TO; repeat for more', collect)
    .option(
      '--slack <URL>',
      'a Slack incoming-webhook URL for this server, besides SLACK_WEBHOOK_URL',
    )
    .option(
      '--webhook <URL>',
      'a webhook URL for this server, besides WEBHOOK_URL (signed with WEBHOOK_SECRET)',
    )
    .option('--hold', 'keep a long-lived session to a stdio server (http and sse always are)')
    .option(
      '--also-as <NAME[/VERSION]>',
      'each probe also lists as this client identity (clientInfo); repeat for more',
      collect,
    )
    .option('--oauth', 'behind OAuth: a person logs in with `server login` (docs/oauth.md)')
    .option(
      '--oauth-grant <GRANT>',
      'authorization-code (a login, the default with --oauth) or client-credentials',
    )
    .option('--oauth-client-id <ID>', 'a pre-registered OAuth client (else dynamic registration)')
    .option(
      '--oauth-client-secret <${VAR}>',
      "the client's secret as a ${VAR} reference, resolved where mcp-drift runs",
    )
    .option('--oauth-scope <SCOPE>', 'a scope to ask for; repeat for more', collect)
    .option(
      '--alert-min-severity <LEVEL>',
      editing
        ? `alert from this severity on (${LEVELS}); default: back to ALERT_MIN_SEVERITY`
        : `alert from this severity on (${LEVELS}; default ALERT_MIN_SEVERITY)`,
    );
  if (editing) {
    command
      .addOption(new Option('--no-hold', 'stop holding a stdio server’s session'))
      .addOption(new Option('--no-oauth', 'no longer behind OAuth'))
      .addOption(new Option('--no-also-as', 'list as mcp-drift only'))
      .addOption(new Option('--no-slack', 'drop this server’s own Slack URL'))
      .addOption(new Option('--no-webhook', 'drop this server’s own webhook URL'));
  }
  return jsonFlag(command);
}

function addServerCommands(program: Command, lazy: Lazy): void {
  const server = program
    .command('server')
    .summary(
      'the registry of watched servers (add, import, list, show, edit, enable, disable, remove)',
    )
    .description('The registry of watched MCP servers.');
  const load = async () => import('./server-command.js');

  registrationFlags(
    server
      .command('add')
      .summary('register a server')
      .description(
        'Register a server. Everything is checked before anything is written, and every bad value is reported at once.',
      )
      .usage('NAME (--stdio [options] -- CMD [ARGS…] | --url URL [--transport http|sse]) [options]')
      .argument('<NAME>', '1-64 letters, digits, -, _ or ., starting with a letter or digit'),
    false,
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift server add fs --stdio -- npx @modelcontextprotocol/server-filesystem /tmp',
        "mcp-drift server add web --url http://127.0.0.1:3001/mcp --header 'Authorization=Bearer ${TOKEN}' --trust trusted",
        "mcp-drift server add tracker --url https://mcp.example.com/mcp --oauth-grant client-credentials --oauth-client-id drift --oauth-client-secret '${TRACKER_SECRET}'",
      ),
    )
    .action(lazy(async () => (await load()).serverAddCommand, { commandLine: true }));

  jsonFlag(server.command('list').summary('every registered server'))
    .addHelpText('after', examples('mcp-drift server list', 'mcp-drift server list --json'))
    .action(lazy(async () => (await load()).serverListCommand));

  jsonFlag(
    server
      .command('show')
      .summary('one registration (literal secrets masked)')
      .argument('<NAME>', 'a registered server'),
  )
    .addHelpText('after', examples('mcp-drift server show fs --json'))
    .action(lazy(async () => (await load()).serverShowCommand));

  registrationFlags(
    server
      .command('edit')
      .summary('change a registration; each flag given replaces that field')
      .description(
        'Change a registration: each flag given replaces that field (--header, --env and --notify replace the whole set); --url or --stdio -- CMD switches the transport.',
      )
      .usage('NAME [options] [-- CMD [ARGS…]]')
      .argument('<NAME>', 'a registered server'),
    true,
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift server edit web --trust partial --schedule default',
        'mcp-drift server edit fs --stdio -- node ./server.js',
      ),
    )
    .action(lazy(async () => (await load()).serverEditCommand, { commandLine: true }));

  jsonFlag(
    server
      .command('login')
      .summary('log in to a server registered with --oauth (authorization code + PKCE)')
      .description(
        'Print the authorization URL (and open it when there is a desktop), wait for the browser to come back to a loopback redirect on 127.0.0.1, and keep the tokens, encrypted, in the registry. A server waiting in needs_login is watched again at once.',
      )
      .argument('<NAME>', 'a server registered with --oauth')
      .option('--no-browser', 'print the URL only; never open a browser'),
  )
    .addHelpText('after', examples('mcp-drift server login tracker'))
    .action(lazy(async () => (await import('./server-login-command.js')).serverLoginCommand));

  for (const [name, summary] of [
    ['enable', 'watch the server again'],
    ['disable', 'stop watching the server, keeping its history'],
  ] as const) {
    jsonFlag(server.command(name).summary(summary).argument('<NAME>', 'a registered server'))
      .addHelpText('after', examples(`mcp-drift server ${name} web`))
      .action(lazy(async () => (await load()).serverEnableCommand(name === 'enable')));
  }

  jsonFlag(
    server
      .command('import')
      .summary(
        'register the servers of MCP hosts’ config files (Claude, Cursor, VS Code, Windsurf)',
      )
      .description(
        'Register the servers written in MCP hosts’ config files: the FILEs given, or else every host’s documented per-user and per-project locations (this directory is the project). Environment references stay references; a literal secret is registered masked and reported. A name already registered, or an entry changed since it was imported, is reported and left alone unless --update. Every file is checked before anything is written.',
      )
      .argument('[FILE...]', 'host config files (JSON with comments); default: the hosts’ own')
      .option('--from <HOST>', `only this host’s files, or the host the FILEs belong to (${HOSTS})`)
      .option('--dry-run', 'print what would be registered, and write nothing')
      .option('--prefix <P>', 'start every imported name with P (e.g. cursor-)')
      .option('--update', 'replace the connection of a clashing or changed server')
      .option(
        '--wrap',
        'print the host config with each imported server routed through `mcp-drift gateway NAME`',
      )
      .option('--write', 'with --wrap: show the changed lines, then rewrite the host config file')
      .option(
        '--check',
        'refuse, writing nothing, when a command is not on PATH, a URL does not answer or a ${VAR} is unset (default: warn)',
      )
      .option(
        '--trust-project',
        'also register the entries of files in this directory (.mcp.json, .cursor/, .vscode/): their commands run as you',
      ),
  )
    .addHelpText(
      'after',
      examples(
        'mcp-drift server import --dry-run',
        'mcp-drift server import --from vscode',
        'mcp-drift server import .mcp.json --prefix team- --update',
      ),
    )
    .action(lazy(async () => (await import('./server-import-command.js')).serverImportCommand));

  server
    .command('gateway-token')
    .summary('make a new token for hosts of serve’s /gateway/NAME/mcp (shown once)')
    .argument('<NAME>', 'a registered server')
    .addHelpText('after', examples('mcp-drift server gateway-token fs'))
    .action(lazy(async () => (await import('./gateway-token-command.js')).gatewayTokenCommand));

  jsonFlag(
    server
      .command('remove')
      .summary('delete a registration and its history')
      .description(
        'Say how much history goes with the server (observations, changes, alerts) and ask before deleting it; without a terminal, pass --yes.',
      )
      .argument('<NAME>', 'a registered server')
      .option('-y, --yes', 'remove without asking (for scripts; required without a terminal)'),
  )
    .addHelpText(
      'after',
      examples('mcp-drift server remove web', 'mcp-drift server remove web --yes'),
    )
    .action(lazy(async () => (await load()).serverRemoveCommand));
}
