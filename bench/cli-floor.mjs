// The floors the CLI's cold start is compared with (bench/cli.bench.ts), as node runs them:
//   node cli-floor.mjs empty       an ES module entry point that does nothing
//   node cli-floor.mjs commander   an ES module that loads commander
//   node cli-floor.mjs query       the database client and one query of the registry, no CLI:
//                                  DATABASE_URL, or serve's socket under MCP_DRIFT_HOME
//   node cli-floor.mjs stack       the same query through drizzle, run as a commander command:
//                                  the libraries `server list` is made of and nothing of ours
//                                  (the bench runs it bundled into one file, as the CLI is)
function client(postgres) {
  return process.env.DATABASE_URL
    ? postgres(process.env.DATABASE_URL, { max: 1, onnotice() {} })
    : postgres({
        path: `${process.env.MCP_DRIFT_HOME}/db.sock`,
        max: 1,
        database: 'postgres',
        user: 'postgres',
        onnotice() {},
      });
}

const print = (rows) =>
  process.stdout.write(`${rows.map((row) => `${row.name} ${row.url}`).join('\n')}\n`);

const what = process.argv[2];
if (what === 'commander') {
  await import('commander');
} else if (what === 'query') {
  const { default: postgres } = await import('postgres');
  const sql = client(postgres);
  print(await sql`select * from servers order by name`);
  await sql.end();
} else if (what === 'stack') {
  const [{ default: postgres }, { Command }, { sql: drizzleSql }, { drizzle }] = await Promise.all([
    import('postgres'),
    import('commander'),
    import('drizzle-orm'),
    import('drizzle-orm/postgres-js'),
  ]);
  const program = new Command('floor');
  program.command('list').action(async () => {
    const sql = client(postgres);
    print(await drizzle(sql).execute(drizzleSql`select * from servers order by name`));
    await sql.end();
  });
  await program.parseAsync(['list'], { from: 'user' });
} else if (what !== 'empty') {
  throw new Error(`usage: node cli-floor.mjs empty|commander|query|stack, not ${what}`);
}
