/**
 * The single table's key layout, in one place: no key string is written
 * anywhere else. A session's items share the partition `SESSION#<id>`, a
 * project's `PROJECT#<id>`, a user's `USER#<id>`; the sort key names the item
 * type. Prefixes (`…Prefix`) and range ends (`…End`) serve queries.
 */
export const keys = {
  session: (id: string) => `SESSION#${id}`,
  /** The session id of a `SESSION#<id>` partition key. */
  sessionIdOf: (pk: string) => pk.slice('SESSION#'.length),
  sessionPrefix: 'SESSION#',
  meta: 'META',
  log: (seq: number) => `LOG#${pad(seq)}`,
  logPrefix: 'LOG#',
  logEnd: 'LOG#~',
  event: (seq: number) => `EVT#${pad(seq)}`,
  eventPrefix: 'EVT#',
  eventEnd: 'EVT#~',
  inbox: (n: number) => `INBOX#${pad(n)}`,
  inboxEnd: 'INBOX#~',
  member: (userId: string) => `MEMBER#${userId}`,
  memberPrefix: 'MEMBER#',
  /** A live view open on the session: its user and the stream's random id (see `SessionWatchers`). */
  watcher: (userId: string, streamId: string) => `WATCH#${userId}#${streamId}`,
  watcherPrefix: 'WATCH#',
  lease: 'LEASE',
  permissions: 'PERMISSIONS',
  summary: 'SUMMARY',
  artifact: (key: string) => `ARTIFACT#${key}`,
  artifactPrefix: 'ARTIFACT#',
  /** A fork made of the session (the link from parent to child; the child's meta item names its parent). */
  fork: (childId: string) => `FORK#${childId}`,
  forkPrefix: 'FORK#',
  /** A rewind of the session's written area, by the event position it was announced at. */
  rewind: (eventSeq: number) => `REWIND#${pad(eventSeq)}`,
  rewindPrefix: 'REWIND#',
  /** GSI `gsi1`: a user's memberships, newest session first. */
  userSessions: (userId: string) => `USER#${userId}`,
  /** The sort key of a membership in `gsi1`: the session's creation time, then its id. */
  userSessionsSort: (createdAt: string, sessionId: string) => `${createdAt}#${sessionId}`,
  apiKey: (hash: string) => `APIKEY#${hash}`,
  apiKeySort: 'KEY',
  userKey: (userId: string, keyId: string) => ({ pk: `USER#${userId}`, sk: `KEY#${keyId}` }),
  userKeyPrefix: 'KEY#',
  /** A project's access items: `META` (who claimed it first), `MEMBER#<user>`, `REPORT#<path>`. */
  project: (id: string) => `PROJECT#${id}`,
  report: (path: string) => `REPORT#${path}`,
  reportPrefix: 'REPORT#',
  /** GSI `gsi1`: a user's projects, by id (project membership items carry gsi1pk = PROJECTS#<id>). */
  userProjects: (userId: string) => `PROJECTS#${userId}`,
  /** The live-view streams a user has open (see `StreamSlots`). */
  userStreams: (userId: string) => ({ pk: `USER#${userId}`, sk: 'STREAMS' }),
  /** The live-view streams open on one session, whoever holds them (same item shape as a user's). */
  sessionStreams: (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'STREAMS' }),
  /** A schedule's fire markers: one per scheduled time, written once (see `fireSchedule`). */
  schedule: (scheduleId: string) => `SCHEDULE#${scheduleId}`,
  scheduledFire: (scheduledAt: string) => `FIRE#${scheduledAt}`,
  /** A schedule's failed runs in a row, an atomic counter beside its fire markers. */
  scheduleFailures: 'FAILURES',
  /** A webhook's delivery claims: by the delivery id its sender gave, or by the SHA-256 of the body. */
  webhook: (hookId: string) => `WEBHOOK#${hookId}`,
  delivery: (deliveryId: string) => `DELIVERY#${deliveryId}`,
  deliveryBody: (sha256: string) => `BODY#${sha256}`,
  /**
   * The outbox (see `subscriptions/outbox.ts`): one item per subscription and message
   * (`SUBSCRIPTION#<id>` / `OUT#<message id>`; a hook's callback is subscription `hook:<id>`),
   * and while one waits to be sent, `gsi1` `OUTBOX` / `<next attempt time>#…` for the sweep.
   */
  outboxDelivery: (subscriptionId: string, messageId: string) => ({ pk: `SUBSCRIPTION#${subscriptionId}`, sk: `OUT#${messageId}` }),
  subscription: (subscriptionId: string) => `SUBSCRIPTION#${subscriptionId}`,
  outboxPrefix: 'OUT#',
  outboxDue: 'OUTBOX',
  outboxDueSort: (nextAt: string, subscriptionId: string, messageId: string) => `${nextAt}#${subscriptionId}#${messageId}`,
  /** Spend counters (see `budgets/`): a session's (`SESSION#<id>` / `SPEND`), a user's or the deployment's per UTC day. */
  sessionSpend: (sessionId: string) => ({ pk: `SESSION#${sessionId}`, sk: 'SPEND' }),
  userSpend: (userId: string, day: string) => ({ pk: `USER#${userId}`, sk: `SPEND#${day}` }),
  deploymentSpend: (day: string) => ({ pk: 'DEPLOYMENT', sk: `SPEND#${day}` }),
  spendPrefix: 'SPEND#',
  /** The runs active now, across sessions (`RUNS` / `RUN#<id>`): what the admin runs list reads. */
  activeRun: (runId: string) => ({ pk: 'RUNS', sk: `RUN#${runId}` }),
  activeRuns: 'RUNS',
  /** Administrators' actions (`AUDIT` / `<at>#<id>`), oldest first. */
  audit: (at: string, id: string) => ({ pk: 'AUDIT', sk: `${at}#${id}` }),
  auditLog: 'AUDIT',
  /** A suspended user's item; absent while they are not suspended. */
  suspension: (userId: string) => ({ pk: `USER#${userId}`, sk: 'SUSPENDED' }),
  /** Usage counters of a UTC day (`USAGE#<day>`), one per user, session and agent, added to each step (see `UsageStore`). */
  usage: (day: string, sk: string) => ({ pk: `USAGE#${day}`, sk }),
  usageDay: (day: string) => `USAGE#${day}`,
  /** A rate limit's counter for one fixed window (`RATE#<scope>:<id>` / `W#<window start ms>`), removed by TTL. */
  rateWindow: (scope: string, start: number) => ({ pk: `RATE#${scope}`, sk: `W#${start}` }),
  /** The write lock of a memory store (`user:<id>`, `project:<owner>/<repo>`): one writer at a time. */
  memoryLock: (store: string) => ({ pk: `MEMORY#${store}`, sk: 'LOCK' }),
  /** An environment (`ENV#<id>` / `ENV`); in `gsi1` under `ENVS`, by creation time, for the list. */
  environment: (id: string) => ({ pk: `ENV#${id}`, sk: 'ENV' }),
  environments: 'ENVS',
  environmentsSort: (createdAt: string, id: string) => `${createdAt}#${id}`,
  /** A self-hosted environment's work items share its partition (`ENV#<id>` / `WORK#<work id>`). */
  work: (environmentId: string, workId: string) => ({ pk: `ENV#${environmentId}`, sk: `WORK#${workId}` }),
  environmentPartition: (id: string) => `ENV#${id}`,
  workPrefix: 'WORK#',
  /** A user's dreams share the user's partition (`USER#<owner>` / `DREAM#<id>`). */
  dream: (owner: string, dreamId: string) => ({ pk: `USER#${owner}`, sk: `DREAM#${dreamId}` }),
  userPartition: (userId: string) => `USER#${userId}`,
  dreamPrefix: 'DREAM#',
};

export const pad = (n: number) => String(n).padStart(12, '0');

/** Where a session's objects live in S3: offloaded log records and event batches, reports and artifacts. */
export const objectKeys = {
  session: (id: string) => `sessions/${id}/`,
  log: (sessionId: string, seq: number) => `sessions/${sessionId}/log/${pad(seq)}.json`,
  events: (sessionId: string, seq: number) => `sessions/${sessionId}/events/${pad(seq)}.json`,
};
