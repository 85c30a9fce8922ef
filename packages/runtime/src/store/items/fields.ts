/** Field schemas that several item types share with the API: one definition, in the wire module. */
export { authorSchema, roleSchema, type Author, type Role } from '@zero/agent/wire';
