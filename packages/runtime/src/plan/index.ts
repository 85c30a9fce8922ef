export { parsePlan, planFormatOf, type PlanError, type PlanFormat, type PlanParse } from './parse';
export { planPrompt } from './prompt';
export { PLAN_PROGRESS_TOOL, createPlanProgressTool, planProgressOf, progressOf, type PlanProgress, type PlanStepState } from './progress';
