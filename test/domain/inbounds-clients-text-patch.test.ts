// Patching a kept settings.clients array text (domain/inbounds/clients-text-patch.ts).
import { describe, expect, it } from 'vitest';
import { patchClientsText } from '../../domain/inbounds/clients-text-patch.js';

type Client = { id: number; email: string; comment?: string; reverse?: { tag: string } };
const json = (c: Client) =>
  JSON.stringify({
    email: c.email,
    enable: true,
    comment: c.comment ?? '',
    ...(c.reverse ? { reverse: c.reverse } : {}),
  });
const text = (cs: Client[]) => JSON.stringify(cs.map((c) => JSON.parse(json(c))));
const fresh = (cs: Client[]) => cs.map((c) => ({ id: c.id, email: c.email, json: json(c) }));

/** Patches `before` to `after` given the changed emails; checks the result is exactly the array of `after`. */
function check(before: Client[], after: Client[], emails: string[]) {
  const lastId = Math.max(0, ...before.map((c) => c.id));
  const current = after.filter((c) => emails.includes(c.email));
  const res = patchClientsText(text(before), lastId, emails, fresh(current));
  expect(res).not.toBeNull();
  expect(res!.text).toBe(text(after));
  return res!;
}

// Emails and comments that look like the text the patch searches for.
const tricky: Client[] = [
  { id: 1, email: 'first@x', comment: '{"email":"second@x","enable":true}' },
  { id: 2, email: 'second@x', comment: '},{"email":"' },
  { id: 3, email: 'q"uote\\back@x', comment: ',{"email":"q"' },
  { id: 5, email: 'ünï😀@x', reverse: { tag: 'r' } },
  { id: 8, email: 'last@x' },
];

describe('patchClientsText', () => {
  it('replaces an entry at the start, in the middle and at the end', () => {
    for (const i of [0, 2, 4]) {
      const after = tricky.map((c, j) => (j === i ? { ...c, comment: 'changed, {"email":"x"}' } : c));
      check(tricky, after, [tricky[i]!.email]);
    }
  });

  it('removes entries (deleted or detached) anywhere, down to an empty array', () => {
    check(
      tricky,
      tricky.filter((c) => c.id !== 1),
      ['first@x'],
    );
    check(
      tricky,
      tricky.filter((c) => c.id !== 3 && c.id !== 5),
      ['q"uote\\back@x', 'ünï😀@x'],
    );
    check(
      tricky,
      tricky.filter((c) => c.id !== 8),
      ['last@x'],
    );
    check(
      tricky,
      [],
      tricky.map((c) => c.email),
    );
    check([], [], ['nobody@x']);
  });

  it('appends new clients in id order and raises lastId', () => {
    const added = [
      { id: 12, email: 'b-new@x' },
      { id: 10, email: 'a-new@x' },
    ];
    const res = check(tricky, [...tricky, added[1]!, added[0]!], ['b-new@x', 'a-new@x']);
    expect(res.lastId).toBe(12);
    expect(check([], [{ id: 1, email: 'only@x' }], ['only@x']).lastId).toBe(1);
  });

  it('does several changes at once, and ignores changed emails the inbound does not hold', () => {
    const after = [tricky[0]!, { ...tricky[1]!, comment: 'c' }, tricky[3]!, { id: 9, email: 'new@x' }];
    check(tricky, after, ['second@x', 'q"uote\\back@x', 'last@x', 'new@x', 'elsewhere@x']);
  });

  it('gives up (null) on an entry it cannot place: an older client newly attached', () => {
    const before = tricky.filter((c) => c.id !== 3);
    expect(patchClientsText(text(before), 8, ['q"uote\\back@x'], fresh([tricky[2]!]))).toBeNull();
    // a renamed client: its new email is not in the text and its id is not new
    expect(
      patchClientsText(text(tricky), 8, ['first@x', 'renamed@x'], fresh([{ id: 1, email: 'renamed@x' }])),
    ).toBeNull();
  });
});
