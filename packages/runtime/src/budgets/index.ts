/** Budgets: what sessions, users and the deployment may spend, counted in DynamoDB. */
export * from './budgets';
export * from './limits';
