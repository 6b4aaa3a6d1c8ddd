/**
 * The project's search attributes, set as a run progresses (src/contract/search-attributes.ts). Each upsert is one
 * history event (and a Temporal Cloud action), so a run sets them where something changes: what it is about with its
 * first stage (`openingSearch`), each later stage, and the verdict; and never to what they already are (a caller
 * may have set the first ones in the start: `searchAttributesAtStart`). Only when the worker said they are
 * registered (the input check's answer).
 */
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { searchPairs, type SearchUpdate } from '../contract/search-attributes.js';

export class Searchable {
  /** Set from the input check: whether this worker's namespace has the attributes registered. */
  enabled = false;

  set(update: SearchUpdate): void {
    if (!this.enabled) return;
    const current = workflowInfo().typedSearchAttributes;
    const pairs = searchPairs(update).filter((p) => current.get(p.key) !== p.value);
    if (pairs.length) upsertSearchAttributes(pairs);
  }
}
