// Client groups: persistent names merged with client labels; rename and delete are one transaction each.
import type { Store } from '../ports/store.js';
import type { Clock } from '../shared/clock.js';
import type { EventSink } from '../shared/events.js';
import { DomainError } from '../shared/errors.js';
import type { GroupSummary } from '../clients/model.js';
import { groupNameProblem } from '../clients/rules.js';

const check = (field: string, value: string): string => {
  const name = value.trim();
  const problem = groupNameProblem(field, name);
  if (problem) throw new DomainError(problem);
  return name;
};

export class GroupsService {
  constructor(
    private store: Store,
    private clock: Clock,
    private events: EventSink,
  ) {}

  list(): Promise<GroupSummary[]> {
    return this.store.groups.list();
  }

  async emails(name: string): Promise<string[]> {
    return this.store.groups.emails(check('name', name));
  }

  async create(name: string): Promise<{ name: string }> {
    const n = check('name', name);
    if (!(await this.store.groups.create(n, this.clock.now())))
      throw new DomainError(`group name already exists: ${n}`, 'conflict');
    this.events.emit('groups.changed', { action: 'create' });
    return { name: n };
  }

  async rename(oldName: string, newName: string): Promise<{ affected: number }> {
    const from = check('oldName', oldName);
    const to = check('newName', newName);
    if (!(await this.store.groups.exists(from))) throw new DomainError(`group ${from} not found`, 'not_found');
    if (from === to) return { affected: 0 };
    const emails = await this.store.groups.rename(from, to, this.clock.now());
    if (emails.length) this.events.emit('clients.changed', { emails, action: 'groupRename' });
    this.events.emit('groups.changed', { action: 'rename' });
    return { affected: emails.length };
  }

  async remove(name: string): Promise<{ affected: number }> {
    const n = check('name', name);
    if (!(await this.store.groups.exists(n))) throw new DomainError(`group ${n} not found`, 'not_found');
    const emails = await this.store.groups.remove(n, this.clock.now());
    if (emails.length) this.events.emit('clients.changed', { emails, action: 'groupDelete' });
    this.events.emit('groups.changed', { action: 'delete' });
    return { affected: emails.length };
  }
}
