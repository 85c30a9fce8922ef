export { parsePlan, planFormatOf, type PlanError, type PlanFormat, type PlanParse } from './parse';
export { planPrompt } from './prompt';
