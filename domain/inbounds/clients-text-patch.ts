// Patching a kept `settings.clients` JSON array text (clients-text-cache.ts) after a few client changes, instead of
// building all 20,000 entries again. Each entry is an object whose first key is "email" (attachedJson builds them
// so), and emails are unique. Outside a JSON string every `"` is a delimiter, so the text `{"email":` followed by
// an email's JSON string can only be the start of that client's entry, and `,{"email":"` only the start of the next
// one (no nested object of an entry has an "email" key).

/** A client's current entry: what the database built for it now. */
export interface FreshEntry {
  id: number;
  email: string;
  json: string;
}

const NEXT_ENTRY = ',{"email":"';

/**
 * The array `text` with the entries of `emails` replaced by their `fresh` ones (client id order kept): an email
 * with no fresh entry is removed, a fresh entry the text does not hold is appended when its client id is above
 * `lastId` (a new client). Null when a fresh entry cannot be placed (an older client newly attached, or renamed):
 * then the array must be built again.
 */
export function patchClientsText(
  text: string,
  lastId: number,
  emails: Iterable<string>,
  fresh: FreshEntry[],
): { text: string; lastId: number } | null {
  const freshByEmail = new Map(fresh.map((f) => [f.email, f]));
  const cuts: { start: number; end: number; json: string | null }[] = [];
  const appended: FreshEntry[] = [];
  for (const email of new Set([...emails, ...freshByEmail.keys()])) {
    const at = findEntry(text, email);
    const f = freshByEmail.get(email);
    if (at) cuts.push({ ...at, json: f?.json ?? null });
    else if (f) {
      if (f.id <= lastId) return null;
      appended.push(f);
    }
  }
  cuts.sort((a, b) => a.start - b.start);
  appended.sort((a, b) => a.id - b.id);
  // The array's items between the cuts (runs of untouched entries) and the replacements, joined by commas.
  const items: string[] = [];
  const run = (from: number, to: number) => {
    if (text[from] === ',') from++;
    if (to > from && text[to - 1] === ',') to--;
    if (to > from) items.push(text.slice(from, to));
  };
  let from = 1; // after '['
  for (const cut of cuts) {
    run(from, cut.start);
    if (cut.json !== null) items.push(cut.json);
    from = cut.end;
  }
  run(from, text.length - 1); // before ']'
  for (const f of appended) items.push(f.json);
  return {
    text: `[${items.join(',')}]`,
    lastId: appended.length ? Math.max(lastId, appended[appended.length - 1]!.id) : lastId,
  };
}

/** Where the entry of `email` is in the array text: [start, end) of its object, or null. */
function findEntry(text: string, email: string): { start: number; end: number } | null {
  const start = text.indexOf(`{"email":${JSON.stringify(email)},`);
  if (start < 0) return null;
  const next = text.indexOf(NEXT_ENTRY, start);
  return { start, end: next < 0 ? text.length - 1 : next };
}
