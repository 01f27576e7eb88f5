import { createRequire } from 'node:module';

type NodeCron = typeof import('node-cron');

let nodeCron: NodeCron | undefined;

/**
 * Whether node-cron, which runs the schedules, accepts this expression: its own check, so
 * that what is accepted here is what serve can schedule.
 *
 * node-cron is required on first use, not imported: every command reads the configuration
 * and the registry commands build registrations, but only a given schedule needs the
 * check, and node-cron's 60 KB would otherwise be compiled at each start of each command
 * (docs/cli.md). Its CommonJS build comes from node_modules, as a dependency of the package;
 * serve's scheduler (src/watch/server-watcher.ts) imports the same version's ES build.
 */
export function isValidCron(expression: string): boolean {
  nodeCron ??= createRequire(import.meta.url)('node-cron') as NodeCron;
  return nodeCron.validate(expression);
}

const FIELDS = [
  { name: 'minute', range: '0-59' },
  { name: 'hour', range: '0-23' },
  { name: 'day of month', range: '1-31' },
  { name: 'month', range: '1-12 or jan-dec' },
  { name: 'day of week', range: '0-7 (0 and 7 are Sunday) or sun-sat' },
] as const;
const SECOND = { name: 'second', range: '0-59' } as const;

/**
 * What is wrong with an expression isValidCron rejects, for a person to fix: the field
 * count, or the first field node-cron refuses and its allowed range. Each field is tried
 * alone among `*`s, so the answer is node-cron's own verdict, not a second parser's.
 */
export function cronProblem(expression: string): string {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    return `has ${parts.length} field${parts.length === 1 ? '' : 's'}; give 5 (minute hour day-of-month month day-of-week) or 6 (a second first)`;
  }
  const fields = parts.length === 6 ? [SECOND, ...FIELDS] : FIELDS;
  for (const [index, field] of fields.entries()) {
    const alone = parts.map((part, at) => (at === index ? part : '*')).join(' ');
    if (!isValidCron(alone)) {
      return `the ${field.name} field "${parts[index]}" is out of range or malformed: allowed ${field.range}, with *, lists (1,5), ranges (1-5) and steps (*/5)`;
    }
  }
  return 'not a cron expression';
}
