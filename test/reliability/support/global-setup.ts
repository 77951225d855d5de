import { clearFigures } from './results';

/** Starts every run with no figures left from the last one. */
export default function globalSetup(): void {
  clearFigures();
}
