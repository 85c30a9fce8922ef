import type { WebFetchCache } from './web-fetch-cache';
import type * as z from 'zod';
import type { AgentCatalog } from '@zero/agent/definitions/catalog';
import type { ProjectAccess } from '../projects/project-access';
import type { ProjectFileCache } from '../projects/file-cache';
import type { ProjectStore } from '../projects/project-store';
import { defineTool as defineAnyTool, type ToolCallContext, type ToolDefinition, type ToolSpec as AnyToolSpec } from '@zero/agent/tools/tool';
import type { ArtifactStore } from '../store/artifact-store';
import type { SessionStore } from '../store/session-store';
import type { MemoryStore } from '../memory/memory-store';
import type { EnvironmentStore } from '../environments/environment-store';
import type { GitHubRepositoryResource } from '../store/session-record';
import type { VaultStore } from '../vaults/vault-store';

/**
 * The built-in tools' side of the tool contract (`@zero/agent/tools/tool`): the services this runtime
 * gives its tools, and the contract bound to them, so a built-in tool reads `context.projects` typed.
 */

/**
 * The services a deployment gives its tools. A run passes them through
 * unopened: only the tools look inside.
 */
export interface ToolServices {
  catalog: AgentCatalog;
  sessions: SessionStore;
  artifacts: ArtifactStore;
  /** Projects in the bucket, and their trees cached on local disk. */
  projects: ProjectStore;
  projectFiles: ProjectFileCache;
  /** Which projects this session's tools may read and write (see `projects/project-access.ts`). */
  projectAccess: ProjectAccess;
  /** Memory stores of users and projects (see `memory/`); absent in contexts built by hand: the memory tool then says so. */
  memory?: MemoryStore;
  /** web_fetch's results cache and per-host rate limit (see `tools/web-fetch-cache.ts`); absent in contexts built by hand: every fetch goes out. */
  webFetch?: WebFetchCache;
  /** Environments (see `environment-store/`): a session's commands run under its environment's settings. Absent: the default environment. */
  environments?: EnvironmentStore;
  /** Writes a session's repository resources into a run's working copy (the composition fetches them from GitHub). Absent: such resources cannot be mounted. */
  mountRepositories?: (dir: string, resources: readonly GitHubRepositoryResource[]) => Promise<void>;
  /**
   * Users' vaults (see `vaults/`), loaded with the first call (a cold start does not load the store
   * nor its sealer): http_request puts a session's vault credentials on the wire. Absent: sessions
   * have no vault credentials.
   */
  vaults?: () => Promise<VaultStore>;
}

/** Picks the tool services out of a deployment's wider set of dependencies. */
export function toolServices(from: ToolServices): ToolServices {
  const { catalog, sessions, artifacts, projects, projectFiles, projectAccess, memory, webFetch, environments, mountRepositories, vaults } = from;
  return {
    catalog,
    sessions,
    artifacts,
    projects,
    projectFiles,
    projectAccess,
    ...(memory ? { memory } : {}),
    ...(webFetch ? { webFetch } : {}),
    ...(environments ? { environments } : {}),
    ...(mountRepositories ? { mountRepositories } : {}),
    ...(vaults ? { vaults } : {}),
  };
}

/** What a built-in tool's execute function may use: the call, its run, and the runtime's tool services. */
export type ToolContext = ToolCallContext & ToolServices;

/** A tool over the runtime's services (a tool that reads none of them is one too). */
export type ToolSpec<I = unknown> = AnyToolSpec<I, ToolServices>;

/** Declares a built-in tool with its input type inferred from the schema; its context carries the runtime's tool services. */
export function defineTool<Sch extends z.ZodType>(spec: ToolDefinition<Sch, ToolServices>): ToolSpec<z.output<Sch>> {
  return defineAnyTool(spec);
}

export type { AgentToolSource, ApprovalAnswer, ApprovalRequest, CallPolicy, CommandAudit, DelegationRequest, Delegator, ToolImage, ToolOutput } from '@zero/agent/tools/tool';
