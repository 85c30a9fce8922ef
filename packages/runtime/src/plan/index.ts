export { PLAN_PROGRESS_TOOL, createPlanProgressTool, planProgressOf, progressOf, type PlanProgress, type PlanStepState } from './progress';
