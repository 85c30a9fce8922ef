import { requireAgent, type AgentCatalog } from '../definitions/catalog';
import type { AgentDefinition } from '../definitions/definition';
import type { ComplexityLevel, VoiceMode } from '../wire';
import { decideComplexity, routeOf, type ComplexityRule } from '../model/complexity-routing';
import { resolveModel, tierModel, type ModelTier, type ModelTiers } from '../model/aliases';

/** Who a run asks for and how; what it leaves out comes from the agent's definition. */
export interface RunRequest {
  agentId: string;
  /** Answers instead when `agentId` is no longer in the catalog (a session's own agent); none for a delegation. */
  fallbackAgentId?: string;
  /** A model id or alias; the agent's model, then `defaultModel`, when absent. */
  model?: string;
  /** A tier instead of a model (a delegation's): the deployment's model of that tier. */
  tier?: ModelTier;
  /** The voice asked for; the agent's default voice when absent. */
  voice?: VoiceMode;
}

/** What a run is set up with. `agent` is undefined when neither it nor the fallback could be found: `missing` says why. */
export interface RunSetup {
  agent?: AgentDefinition;
  model: string;
  voice: VoiceMode;
  missing?: unknown;
}

/**
 * The one place a run's agent, model and voice are resolved, for a message
 * to a session and for a delegated task alike. A request's own choice wins
 * over the agent's; the deployment's default model comes last. Never throws:
 * a failed look-up is `missing` (the catalog's 404 lists the agents).
 */
export async function resolveRunSetup(catalog: AgentCatalog, request: RunRequest, defaultModel: string, tiers: ModelTiers = {}): Promise<RunSetup> {
  let missing: unknown;
  let agent = await requireAgent(catalog, request.agentId).catch((error: unknown) => {
    missing = error;
    return undefined;
  });
  if (!agent && request.fallbackAgentId !== undefined) agent = await requireAgent(catalog, request.fallbackAgentId).catch(() => undefined);
  // The request's model, else the tier it asks for (a delegation's), else the agent's.
  const asked = request.model ?? (request.tier ? tierModel(request.tier, tiers, defaultModel) : undefined);
  return {
    ...(agent ? { agent } : { missing }),
    model: asked ? resolveModel(asked, defaultModel) : agentModel(agent, defaultModel, tiers),
    voice: request.voice ?? agent?.default_voice ?? 'full',
  };
}

/** The model an agent runs on: the one its file names, else its tier's, else the deployment's default. */
export function agentModel(agent: Pick<AgentDefinition, 'model' | 'tier'> | undefined, defaultModel: string, tiers: ModelTiers = {}): string {
  if (agent?.model) return resolveModel(agent.model, defaultModel);
  return agent?.tier ? tierModel(agent.tier, tiers, defaultModel) : defaultModel;
}

/**
 * A message's routing: its complexity decided (the request's, the agent's, an operator's rule; see
 * model/complexity-routing.ts) with the model of its tier, and the tools the run may use: exactly the
 * request's `tools_required` the agent has, else none for F1–F2, else (undefined) the agent's own.
 */
export function routeMessage(
  message: { text: string; complexity?: ComplexityLevel; tools_required?: readonly string[] },
  agent: AgentDefinition,
  model: string,
  routing: { rules: readonly ComplexityRule[]; tiers?: ModelTiers; defaultModel: string },
) {
  const decision = decideComplexity(message.text, { request: message.complexity, agent: agent.complexity }, routing.rules);
  const route = decision ? routeOf(decision.level) : undefined;
  const required = message.tools_required;
  const tools = required ? agent.tools.filter((name) => required.includes(name)) : route && !route.tools ? [] : undefined;
  return { decision, model: route ? tierModel(route.tier, routing.tiers ?? {}, routing.defaultModel) : model, tools };
}
