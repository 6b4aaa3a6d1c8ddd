export { DEFAULT_PATHS, ServiceClient } from './client.js';
export type { ApiBearer, CallOptions, ResponseEvent, ServiceClientOptions, ServicePaths } from './client.js';
export * from './errors.js';
export * from './schemas.js';
export { SessionManager, type SessionInfo, type SessionManagerOptions } from './session.js';
