/** GitHub's cap on a comment's body and a check run's summary is 65,536 characters; Zero cuts its Markdown below it. */
export const MAX_GITHUB_BODY_CHARS = 60_000;

/** The Markdown as GitHub takes it: cut at `MAX_GITHUB_BODY_CHARS` with a note saying the whole of it is in Zero. */
export function cutForGitHub(markdown: string): string {
  return markdown.length <= MAX_GITHUB_BODY_CHARS ? markdown : `${markdown.slice(0, MAX_GITHUB_BODY_CHARS)}\n\n_[cut: the report is ${markdown.length} characters; the whole of it is in Zero]_`;
}
