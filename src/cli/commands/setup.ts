/**
 * `setup search-attributes`: the search attributes the workflows set, registered in the namespace.
 * `setup nexus`: what other namespaces need to call the `dataops` Nexus service: an endpoint that routes to this
 * CLI's namespace and task queue (where the worker serves the service) and, on a dev server, the callers' namespace.
 */
import type { Command } from 'commander';
import { NEXUS_SERVICE_NAME } from '../../contract/nexus.js';
import { SEARCH_ATTRIBUTES } from '../../contract/search-attributes.js';
import { ensureNamespace, ensureNexusEndpoint } from '../../setup/nexus.js';
import { ensureSearchAttributes } from '../../setup/search-attributes.js';
import type { CommandContext } from '../runner.js';

export function registerSetupCommands(program: Command, { starter: s, action }: CommandContext): void {
  const setup = program.command('setup').description('prepare a Temporal cluster for callers of this project');
  setup
    .command('nexus')
    .description(
      `create the Nexus endpoint that routes the '${NEXUS_SERVICE_NAME}' service to the workers' namespace and task queue`,
    )
    .option('--endpoint <name>', 'endpoint name callers use', 'dataops')
    .option('--caller-namespace <name>', 'also create this namespace for callers (dev servers)')
    .action(
      action(async (f: { endpoint: string; callerNamespace?: string }) => {
        const client = await s().connect();
        const { namespace, taskQueue } = s().config.temporal;
        if (f.callerNamespace) {
          const created = await ensureNamespace(client.connection, f.callerNamespace);
          s().print(`namespace ${f.callerNamespace}: ${created ? 'created' : 'exists'}`);
        }
        const created = await ensureNexusEndpoint(client.connection, {
          name: f.endpoint,
          targetNamespace: namespace,
          targetTaskQueue: taskQueue,
          description: `dataops-temporal: the '${NEXUS_SERVICE_NAME}' Nexus service`,
        });
        s().print(`endpoint ${f.endpoint} → ${namespace}/${taskQueue}: ${created ? 'created' : 'exists'}`);
      }),
    );
  setup
    .command('search-attributes')
    .description('register the search attributes the workflows set (table group, test suite, stage, verdict)')
    .action(
      action(async () => {
        const client = await s().connect();
        const { namespace } = s().config.temporal;
        const added = await ensureSearchAttributes(client.connection, namespace);
        for (const name of Object.values(SEARCH_ATTRIBUTES).map((k) => k.name))
          s().print(
            `search attribute ${name} (Keyword) in ${namespace}: ${added.includes(name) ? 'registered' : 'exists'}`,
          );
      }),
    );
}
