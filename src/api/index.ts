/** The client's public surface: the client, its options, the error hierarchy, the schemas and the session. */
export type { ApiBearer } from './bearer.js';
export { ServiceClient } from './client.js';
export * from './errors.js';
export { DEFAULT_PATHS, type ResponseEvent, type ServiceClientOptions, type ServicePaths } from './options.js';
export type { CallOptions, TestRunLink } from './resources.js';
export * from './schemas.js';
export { isTerminalJobStatus, isTerminalOrderRunStatus } from '../vocabulary.js';
export { SessionManager, type SessionInfo, type SessionManagerOptions } from './session.js';
