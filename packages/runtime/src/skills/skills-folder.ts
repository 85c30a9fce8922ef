/** Where a run's working copy holds its skills' files: `.skills/<name>/<path>`. */
export const SKILLS_FOLDER = '.skills';
