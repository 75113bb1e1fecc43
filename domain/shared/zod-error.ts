// The one message a failed zod parse becomes: its first issue, prefixed by the field path ("client.email: …").
export interface IssueList {
  issues: { path: PropertyKey[]; message: string }[];
}

/** `prefix` names where the parsed value sits (e.g. `[3]` for an item of a bulk body); without a path: `body`. */
export function describeZodError(err: IssueList, prefix = ''): string {
  const issue = err.issues[0];
  if (!issue) return 'invalid input';
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return `${path || 'body'}: ${issue.message}`;
}
