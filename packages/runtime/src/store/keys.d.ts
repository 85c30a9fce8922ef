/**
 * The single table's key layout, in one place: no key string is written
 * anywhere else. A session's items share the partition `SESSION#<id>`, a
 * project's `PROJECT#<id>`, a user's `USER#<id>`; the sort key names the item
 * type. Prefixes (`…Prefix`) and range ends (`…End`) serve queries.
 */
export declare const keys: {
    session: (id: string) => string;
    /** The session id of a `SESSION#<id>` partition key. */
    sessionIdOf: (pk: string) => string;
    sessionPrefix: string;
    meta: string;
    log: (seq: number) => string;
    logPrefix: string;
    logEnd: string;
    event: (seq: number) => string;
    eventPrefix: string;
    eventEnd: string;
    inbox: (n: number) => string;
    inboxEnd: string;
    member: (userId: string) => string;
    memberPrefix: string;
    /** A live view open on the session: its user and the stream's random id (see `SessionWatchers`). */
    watcher: (userId: string, streamId: string) => string;
    watcherPrefix: string;
    lease: string;
    permissions: string;
    summary: string;
    artifact: (key: string) => string;
    artifactPrefix: string;
    /** GSI `gsi1`: a user's memberships, newest session first. */
    userSessions: (userId: string) => string;
    /** The sort key of a membership in `gsi1`: the session's creation time, then its id. */
    userSessionsSort: (createdAt: string, sessionId: string) => string;
    apiKey: (hash: string) => string;
    apiKeySort: string;
    userKey: (userId: string, keyId: string) => {
        pk: string;
        sk: string;
    };
    userKeyPrefix: string;
    /** A project's access items: `META` (who claimed it first), `MEMBER#<user>`, `REPORT#<path>`. */
    project: (id: string) => string;
    report: (path: string) => string;
    reportPrefix: string;
    /** GSI `gsi1`: a user's projects, by id (project membership items carry gsi1pk = PROJECTS#<id>). */
    userProjects: (userId: string) => string;
    /** The live-view streams a user has open (see `StreamSlots`). */
    userStreams: (userId: string) => {
        pk: string;
        sk: string;
    };
    /** The live-view streams open on one session, whoever holds them (same item shape as a user's). */
    sessionStreams: (sessionId: string) => {
        pk: string;
        sk: string;
    };
    /** A schedule's fire markers: one per scheduled time, written once (see `fireSchedule`). */
    schedule: (scheduleId: string) => string;
    scheduledFire: (scheduledAt: string) => string;
    /** A schedule's failed runs in a row, an atomic counter beside its fire markers. */
    scheduleFailures: string;
    /** A webhook's delivery claims: by the delivery id its sender gave, or by the SHA-256 of the body. */
    webhook: (hookId: string) => string;
    delivery: (deliveryId: string) => string;
    deliveryBody: (sha256: string) => string;
    /**
     * The outbox (see `subscriptions/outbox.ts`): one item per subscription and message
     * (`SUBSCRIPTION#<id>` / `OUT#<message id>`; a hook's callback is subscription `hook:<id>`),
     * and while one waits to be sent, `gsi1` `OUTBOX` / `<next attempt time>#…` for the sweep.
     */
    outboxDelivery: (subscriptionId: string, messageId: string) => {
        pk: string;
        sk: string;
    };
    subscription: (subscriptionId: string) => string;
    outboxPrefix: string;
    outboxDue: string;
    outboxDueSort: (nextAt: string, subscriptionId: string, messageId: string) => string;
    /** Spend counters (see `budgets/`): a session's (`SESSION#<id>` / `SPEND`), a user's or the deployment's per UTC day. */
    sessionSpend: (sessionId: string) => {
        pk: string;
        sk: string;
    };
    userSpend: (userId: string, day: string) => {
        pk: string;
        sk: string;
    };
    deploymentSpend: (day: string) => {
        pk: string;
        sk: string;
    };
    spendPrefix: string;
    /** The runs active now, across sessions (`RUNS` / `RUN#<id>`): what the admin runs list reads. */
    activeRun: (runId: string) => {
        pk: string;
        sk: string;
    };
    activeRuns: string;
    /** Administrators' actions (`AUDIT` / `<at>#<id>`), oldest first. */
    audit: (at: string, id: string) => {
        pk: string;
        sk: string;
    };
    auditLog: string;
    /** A suspended user's item; absent while they are not suspended. */
    suspension: (userId: string) => {
        pk: string;
        sk: string;
    };
    /** Usage counters of a UTC day (`USAGE#<day>`), one per user, session and agent, added to each step (see `UsageStore`). */
    usage: (day: string, sk: string) => {
        pk: string;
        sk: string;
    };
    usageDay: (day: string) => string;
    /** A rate limit's counter for one fixed window (`RATE#<scope>:<id>` / `W#<window start ms>`), removed by TTL. */
    rateWindow: (scope: string, start: number) => {
        pk: string;
        sk: string;
    };
    /** The write lock of a memory store (`user:<id>`, `project:<owner>/<repo>`): one writer at a time. */
    memoryLock: (store: string) => {
        pk: string;
        sk: string;
    };
    /** An environment (`ENV#<id>` / `ENV`); in `gsi1` under `ENVS`, by creation time, for the list. */
    environment: (id: string) => {
        pk: string;
        sk: string;
    };
    environments: string;
    environmentsSort: (createdAt: string, id: string) => string;
    /** A self-hosted environment's work items share its partition (`ENV#<id>` / `WORK#<work id>`). */
    work: (environmentId: string, workId: string) => {
        pk: string;
        sk: string;
    };
    environmentPartition: (id: string) => string;
    workPrefix: string;
};
export declare const pad: (n: number) => string;
/** Where a session's objects live in S3: offloaded log records and event batches, reports and artifacts. */
export declare const objectKeys: {
    session: (id: string) => string;
    log: (sessionId: string, seq: number) => string;
    events: (sessionId: string, seq: number) => string;
};
