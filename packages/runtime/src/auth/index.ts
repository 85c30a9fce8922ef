/** Who is asking: API keys, JWTs, roles. */
export * from './roles';
export * from './api-keys';
export * from './authenticator';
export * from './suspensions';
export * from './admit-caller';
