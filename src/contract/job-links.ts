/**
 * Links to a remote job's page in the service's UI. The worker knows the UI (DATAOPS_SERVICE_UI_URL) and tells each
 * workflow the page of each role as a template at its input check; the workflow fills in the job's id. Workflow-safe:
 * no Node modules.
 */

/** Page templates by job role (`profiling`, `test_run`, `generation`), `{job_id}` standing for the job's id. */
export type JobLinks = Partial<Record<string, string>>;

/** The job's page, or undefined where the deployment has none for its role. */
export function jobLink(links: JobLinks, role: string, jobId: string): string | undefined {
  const template = Object.hasOwn(links, role) ? links[role] : undefined;
  return template ? template.replaceAll('{job_id}', encodeURIComponent(jobId)) : undefined;
}
