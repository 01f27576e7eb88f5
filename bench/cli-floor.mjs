// The floors the CLI's cold start is compared with (bench/cli.bench.ts), as node runs them:
//   node cli-floor.mjs empty       an ES module entry point that does nothing
//   node cli-floor.mjs commander   an ES module that loads commander
//   node cli-floor.mjs query       the database client and one query of the registry, no CLI:
//                                  DATABASE_URL, or serve's socket under MCP_DRIFT_HOME
const what = process.argv[2];
if (what === 'commander') {
  await import('commander');
} else if (what === 'query') {
  const { default: postgres } = await import('postgres');
  const sql = process.env.DATABASE_URL
    ? postgres(process.env.DATABASE_URL, { max: 1, onnotice() {} })
    : postgres({
        path: `${process.env.MCP_DRIFT_HOME}/db.sock`,
        max: 1,
        database: 'postgres',
        user: 'postgres',
        onnotice() {},
      });
  const rows = await sql`select * from servers order by name`;
  process.stdout.write(`${rows.map((row) => `${row.name} ${row.url}`).join('\n')}\n`);
  await sql.end();
} else if (what !== 'empty') {
  throw new Error(`usage: node cli-floor.mjs empty|commander|query, not ${what}`);
}
