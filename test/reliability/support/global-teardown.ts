import { formatTable, readFigures, writeResultsFile } from './results';

/** Prints the run's figures (the table for the closing note) and writes them to .results.json. */
export default function globalTeardown(): void {
  const figures = readFigures();
  if (figures.length === 0) return;
  writeResultsFile(figures);
  process.stdout.write(
    `\n== reliability figures (also in test/reliability/.results.json)\n${formatTable(figures)}\n\n`,
  );
}
