/** What a catalog reread needs, loaded together on its first reread: the Markdown parser and the managed agents. */
export { parseAgentMarkdown } from './parse';
export { withManagedAgents } from '@zero/integrations/managed/merge';
