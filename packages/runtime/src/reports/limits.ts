/** The limits of one rendering: the original designs' 50 pages and 30 seconds, and the most text a report may have. */
export const REPORT_LIMITS = { maxPages: 50, timeoutMs: 30_000, maxChars: 200_000 } as const;
