/**
 * Our activities as the workflows call them: by their own names, scheduled under the names the worker registers
 * (`dataops.<name>`, src/contract/names.ts).
 */
import {
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { NAME_PREFIX } from '../contract/names.js';

const renamed = (proxy: Record<string, unknown>): Activities =>
  new Proxy({} as Activities, {
    get: (_, name) => (typeof name === 'string' ? proxy[NAME_PREFIX + name] : undefined),
  });

/** Our activities, scheduled with `options`. */
export const ourActivities = (options: ActivityOptions): Activities => renamed(proxyActivities(options));

/** Our activities, run as local activities with `options`. */
export const ourLocalActivities = (options: LocalActivityOptions): Activities => renamed(proxyLocalActivities(options));
