/**
 * Whether a module is the program Node was started with. npm installs a package's `bin` as a symlink
 * (`node_modules/.bin/dataops`), so the path Node was given is compared once resolved, not as given: the `dataops`
 * CLI of an installed package would otherwise do nothing and exit 0.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export function isEntryPoint(moduleUrl: string): boolean {
  const started = process.argv[1];
  if (!started) return false;
  try {
    return pathToFileURL(realpathSync(started)).href === moduleUrl;
  } catch {
    return false;
  }
}
