// Sizes and budgets of a reliability run, from the environment. The defaults fit the CI budget
// (the whole suite in about four minutes on a 2-core machine, 100 000 fuzzed inputs per transport).

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

/** Fuzzed inputs per transport, split evenly between the two eras (each followed by a probe). */
export const FUZZ_MESSAGES = positiveInteger('FUZZ_MESSAGES', 100_000);

/**
 * Wall-clock budget of one transport's fuzz run (both eras run at once). 100 000 inputs take
 * 40–85 s per transport on a 2-core machine (HTTP is the slowest); a lane that runs out stops, and its figures say so.
 */
export const FUZZ_BUDGET_MS = positiveInteger('FUZZ_BUDGET_MS', 90_000);

/** Length of the soak. */
export const SOAK_MS = positiveInteger('SOAK_MS', 30_000);

/** Jest timeout of a fuzz test: its budget, plus room to start and stop servers. */
export const FUZZ_TEST_TIMEOUT_MS = FUZZ_BUDGET_MS + 60_000;
