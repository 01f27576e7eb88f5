import { earlyCheckError, earlyProblems, type EarlyProblem } from '../registry/early-checks.js';
import type { ServerSpec } from '../registry/server-spec.js';
import type { CommandContext } from './context.js';

/**
 * The early checks of registrations about to be written (early-checks.ts): with --check a
 * problem refuses them all, else they are returned to be printed once the write is done.
 */
export async function checkEarly(
  ctx: CommandContext,
  specs: ServerSpec[],
  refuse: boolean,
): Promise<EarlyProblem[]> {
  const problems = (
    await Promise.all(specs.map((spec) => earlyProblems(spec, { environment: ctx.env })))
  ).flat();
  if (refuse && problems.length > 0) throw earlyCheckError(problems);
  return problems;
}
