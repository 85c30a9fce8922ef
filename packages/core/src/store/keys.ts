/** The single table's key layout, in one place. */
export const keys = {
  session: (id: string) => `SESSION#${id}`,
  meta: 'META',
  log: (seq: number) => `LOG#${pad(seq)}`,
  logEnd: 'LOG#~',
  event: (seq: number) => `EVT#${pad(seq)}`,
  eventEnd: 'EVT#~',
  inbox: (n: number) => `INBOX#${pad(n)}`,
  inboxEnd: 'INBOX#~',
  member: (userId: string) => `MEMBER#${userId}`,
  lease: 'LEASE',
  /** GSI `gsi1`: a user's memberships, newest session first. */
  userSessions: (userId: string) => `USER#${userId}`,
  apiKey: (hash: string) => `APIKEY#${hash}`,
  userKey: (userId: string, keyId: string) => ({ pk: `USER#${userId}`, sk: `KEY#${keyId}` }),
  /** A project's access items: `META` (who claimed it first), `MEMBER#<user>`, `REPORT#<path>`. */
  project: (id: string) => `PROJECT#${id}`,
  report: (path: string) => `REPORT#${path}`,
  /** GSI `gsi1`: a user's projects, by id (project membership items carry gsi1pk = PROJECTS#<id>). */
  userProjects: (userId: string) => `PROJECTS#${userId}`,
  /** The live-view streams a user has open (see `StreamSlots`). */
  userStreams: (userId: string) => ({ pk: `USER#${userId}`, sk: 'STREAMS' }),
};

export const pad = (n: number) => String(n).padStart(12, '0');
