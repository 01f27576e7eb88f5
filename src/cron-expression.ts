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
 * (issue 15). Its CommonJS build comes from node_modules, as a dependency of the package;
 * serve's scheduler (src/watch/server-watcher.ts) imports the same version's ES build.
 */
export function isValidCron(expression: string): boolean {
  nodeCron ??= createRequire(import.meta.url)('node-cron') as NodeCron;
  return nodeCron.validate(expression);
}
