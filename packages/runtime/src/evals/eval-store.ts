import type { ArtifactStore } from '../store/artifact-store';
import { datasetSchema, type Dataset } from '@zero/agent/wire/evals';
import { caseResultSchema, evalRunSchema, type CaseResult, type EvalRun } from '@zero/agent/wire/evals';

const pad = (n: number) => String(n).padStart(6, '0');
const datasetPrefix = (name: string) => `evals/datasets/${name}/`;
const runKey = (id: string) => `evals/runs/${id}/run.json`;
const resultsPrefix = (id: string) => `evals/runs/${id}/results/`;
const resultKey = (id: string, variant: string, caseId: string) => `${resultsPrefix(id)}${variant}/${caseId}.json`;

/**
 * Datasets, eval runs and their case results in the bucket (`evals/`). A dataset's versions are
 * immutable objects `v<n>.json`; a run is one object and each case result another, written once.
 */
export class EvalStore {
  constructor(private readonly artifacts: ArtifactStore) {}

  /** Versions of a dataset, newest last. */
  async datasetVersions(name: string): Promise<number[]> {
    const listed = await this.artifacts.list(datasetPrefix(name));
    return listed.flatMap((o) => {
      const m = /\/v(\d+)\.json$/.exec(o.key);
      return m ? [Number(m[1])] : [];
    }).sort((a, b) => a - b);
  }

  /** Stores a new version of the dataset (the next number); a dataset's earlier versions stay as they were. */
  async saveDataset(dataset: Omit<Dataset, 'version' | 'v'>): Promise<Dataset> {
    const version = ((await this.datasetVersions(dataset.name)).at(-1) ?? 0) + 1;
    const stored = datasetSchema.parse({ ...dataset, v: 1, version });
    await this.artifacts.putJson(`${datasetPrefix(dataset.name)}v${pad(version)}.json`, stored);
    return stored;
  }

  /** A dataset's version (its latest when none is named). */
  async getDataset(name: string, version?: number): Promise<Dataset | undefined> {
    const v = version ?? (await this.datasetVersions(name)).at(-1);
    if (v === undefined) return undefined;
    const raw = await this.artifacts.getJson(`${datasetPrefix(name)}v${pad(v)}.json`);
    return raw === undefined ? undefined : datasetSchema.parse(raw);
  }

  /** Every dataset's name and latest version. */
  async listDatasets(): Promise<{ name: string; latest_version: number }[]> {
    const listed = await this.artifacts.list('evals/datasets/');
    const latest = new Map<string, number>();
    for (const o of listed) {
      const m = /^evals\/datasets\/([^/]+)\/v(\d+)\.json$/.exec(o.key);
      if (m) latest.set(m[1]!, Math.max(latest.get(m[1]!) ?? 0, Number(m[2])));
    }
    return [...latest].map(([name, latest_version]) => ({ name, latest_version })).sort((a, b) => a.name.localeCompare(b.name));
  }

  async putRun(run: EvalRun): Promise<void> {
    await this.artifacts.putJson(runKey(run.id), evalRunSchema.parse(run));
  }

  async getRun(id: string): Promise<EvalRun | undefined> {
    const raw = await this.artifacts.getJson(runKey(id));
    return raw === undefined ? undefined : evalRunSchema.parse(raw);
  }

  /** Every run's record, newest first. */
  async listRuns(): Promise<EvalRun[]> {
    const listed = await this.artifacts.list('evals/runs/');
    const ids = listed.flatMap((o) => /^evals\/runs\/([^/]+)\/run\.json$/.exec(o.key)?.[1] ?? []);
    const runs = await Promise.all(ids.map((id) => this.getRun(id)));
    return runs.filter((r): r is EvalRun => !!r).sort((a, b) => b.created_at.localeCompare(a.created_at));
  }

  async putResult(runId: string, result: CaseResult): Promise<void> {
    await this.artifacts.putJson(resultKey(runId, result.variant, result.case_id), caseResultSchema.parse(result));
  }

  /** Every case result of the run so far. */
  async results(runId: string): Promise<CaseResult[]> {
    const listed = await this.artifacts.list(resultsPrefix(runId));
    const read = await Promise.all(listed.map((o) => this.artifacts.getJson(o.key)));
    return read.filter((r) => r !== undefined).map((r) => caseResultSchema.parse(r));
  }
}
