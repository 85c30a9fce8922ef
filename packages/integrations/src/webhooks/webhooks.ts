import type { GitHubSettings } from '../github/settings';
import type { ProjectAccess } from '@zero/runtime/projects/project-access';
import type { ProjectStore } from '@zero/runtime/projects/project-store';
import type { RunQueue } from '@zero/runtime/sessions/queue';
import type { UnattendedDeps } from '@zero/runtime/sessions/start-unattended';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import type { SessionStore } from '@zero/runtime/store/session-store';
import type { CallbackOptions, SecretResolver } from './callback';
import type { HookStore } from './hook-config';
import type { WebhookStore } from './webhook-store';

export type { SecretResolver } from './callback';

/** What webhooks need: the hooks, their DynamoDB items, where secrets come from, how callbacks go out. */
export interface Webhooks {
  hooks: HookStore;
  store: WebhookStore;
  secret: SecretResolver;
  callback: CallbackOptions;
}

export interface WebhookDeps extends UnattendedDeps {
  webhooks: Webhooks;
  sessions: SessionStore;
  projects: ProjectStore;
  projectAccess: ProjectAccess;
  artifacts: ArtifactStore;
  queue: RunQueue;
  /** Tells subscribers of the new session (see SessionRunnerDeps). */
  onSessionCreated?: (session: import('@zero/runtime/store/records').SessionMeta) => Promise<void>;
  /** GitHub, for hooks that hydrate their project or report on the pull request. */
  github: GitHubSettings;
  /** Signed events: a hook's callback goes out through the same outbox as subscriptions' events. */
  subscriptions: import('../subscriptions/publish').SubscriptionSettings;
}
