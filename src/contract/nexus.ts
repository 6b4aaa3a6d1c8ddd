/**
 * The Nexus service other namespaces call: one operation per workflow, each backed by a run of that workflow (the
 * operation ends with the run; cancelling the operation cancels the run, and so its remote job). Inputs and results
 * are the workflows' own (the JSON Schemas under contract/json-schema/). Import this file, not the contract index,
 * in a caller's workflow code.
 */
import * as nexus from 'nexus-rpc';
import type {
  DataQualityPipelineInput,
  DataQualityPipelineResult,
  ProfileTableGroupInput,
  ProfileTableGroupResult,
  RunOrderInput,
  RunOrderResult,
  RunTestSuiteInput,
  RunTestSuiteResult,
} from './workflows.js';
import type {
  ExportTestDefinitionsInput,
  ExportTestDefinitionsResult,
  PromoteTestDefinitionsInput,
  PromoteTestDefinitionsResult,
} from './promotion.js';

/** The service's name, as callers address it through an endpoint. */
export const NEXUS_SERVICE_NAME = 'dataops';

export const dataopsNexusService = nexus.service(NEXUS_SERVICE_NAME, {
  dataQualityPipeline: nexus.operation<DataQualityPipelineInput, DataQualityPipelineResult>(),
  profileTableGroup: nexus.operation<ProfileTableGroupInput, ProfileTableGroupResult>(),
  runTestSuite: nexus.operation<RunTestSuiteInput, RunTestSuiteResult>(),
  runOrder: nexus.operation<RunOrderInput, RunOrderResult>(),
  promoteTestDefinitions: nexus.operation<PromoteTestDefinitionsInput, PromoteTestDefinitionsResult>(),
  exportTestDefinitions: nexus.operation<ExportTestDefinitionsInput, ExportTestDefinitionsResult>(),
});
export type DataopsNexusService = typeof dataopsNexusService;
