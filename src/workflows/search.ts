/**
 * The project's search attributes, set as a run progresses (src/contract/search-attributes.ts). Each upsert is one
 * history event, so a run sets them where something changes: what it is about with its first stage, each later
 * stage, and the verdict. Only when the worker said they are registered (the input check's answer).
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTES as SA, type Stage, type Verdict } from '../contract/search-attributes.js';

export interface SearchUpdate {
  tableGroupId?: string;
  testSuiteId?: string;
  stage?: Stage;
  verdict?: Verdict;
}

export class Searchable {
  /** Set from the input check: whether this worker's namespace has the attributes registered. */
  enabled = false;

  set(update: SearchUpdate): void {
    if (!this.enabled) return;
    const pairs: SearchAttributeUpdatePair[] = [];
    if (update.tableGroupId) pairs.push({ key: SA.tableGroupId, value: update.tableGroupId });
    if (update.testSuiteId) pairs.push({ key: SA.testSuiteId, value: update.testSuiteId });
    if (update.stage) pairs.push({ key: SA.stage, value: update.stage });
    if (update.verdict) pairs.push({ key: SA.verdict, value: update.verdict });
    if (pairs.length) upsertSearchAttributes(pairs);
  }
}
