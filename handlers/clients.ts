// /panel/api/clients/*: clients keyed by email, groups, bulk operations, traffic, IPs, online state.
// (/links/:email and /subLinks/:subId live in handlers/client-links.ts.)
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { InputError, parseBody, parseParams, parseQuery, rawBody } from './input.js';
import {
  addBody, boolish, BULK_MAX, clientInput, emailsBody, inboundIdsSchema, intish,
} from '../domain/clients/input.js';
import { BUCKETS, SORT_KEYS, type PageQuery } from '../domain/clients/model.js';
import { identifierProblem } from '../domain/clients/rules.js';
import { PROTOCOLS } from '../domain/inbounds/model.js';
import { describeZodError } from './validate.js';
import { assertJsonInput } from '../domain/shared/json-input.js';

const emailParam = z.object({
  email: z.string().superRefine((v, ctx) => {
    const problem = identifierProblem('email', v, true);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.replace(/^email: /, '') });
  }),
});

const nameParam = z.object({ name: z.string().min(1, 'must not be empty').max(255) });

const PAGE_DEFAULT = 25;
const PAGE_MAX = 200;

const pageQuery = z.object({
  page: intish(-1_000_000_000, 1_000_000_000).optional(),
  pageSize: intish(-1_000_000_000, 1_000_000_000).optional(),
  search: z.string().max(255, 'must be at most 255 characters').optional(),
  filter: z.enum(['', ...BUCKETS], { error: `must be one of: ${BUCKETS.join(', ')}` }).optional(),
  protocol: z.enum(['', ...PROTOCOLS], { error: `must be one of: ${PROTOCOLS.join(', ')}` }).optional(),
  sort: z.enum(['', ...SORT_KEYS], { error: `must be one of: ${SORT_KEYS.join(', ')}` }).optional(),
  order: z.enum(['', 'ascend', 'descend'], { error: 'must be ascend or descend' }).optional(),
  group: z.string().max(255).optional(),
});

const inboundIdsBody = z.object({ inboundIds: inboundIdsSchema });
const keepTrafficQuery = z.object({ keepTraffic: z.enum(['0', '1', 'true', 'false'], { error: 'must be 0 or 1' }).optional() });

/** The update body is the client object itself; `{client: {...}}` is accepted too. */
async function clientBody(c: Context<AppEnv>) {
  let body = await rawBody(c);
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    if (o.client !== undefined && o.email === undefined) body = typeof o.client === 'string' ? safeJson(o.client) : o.client;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new InputError('body: must be a client object');
  const r = clientInput.safeParse(body);
  if (!r.success) throw new InputError(describeZodError(r.error));
  return r.data;
}

const safeJson = (s: string): unknown => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(s);
  } catch {
    throw new InputError('client: malformed JSON');
  }
  return assertJsonInput(parsed, 'client');
};

export function clientRoutes() {
  const app = new Hono<AppEnv>();
  const svc = (c: Context<AppEnv>) => c.var.services.clients;
  const groups = (c: Context<AppEnv>) => c.var.services.groups;
  const email = (c: Context<AppEnv>) => parseParams(c, emailParam).email;

  app.get('/list', async (c) => ok(c, await svc(c).list()));

  app.get('/list/paged', async (c) => {
    const q = parseQuery(c, pageQuery);
    const pageSize = !q.pageSize || q.pageSize <= 0 ? PAGE_DEFAULT : Math.min(q.pageSize, PAGE_MAX);
    const query: PageQuery = {
      page: !q.page || q.page < 1 ? 1 : q.page,
      pageSize,
      search: q.search ?? '',
      filter: q.filter ?? '',
      protocol: q.protocol ?? '',
      sort: q.sort ?? '',
      order: q.order === 'descend' ? 'descend' : 'ascend',
      group: q.group,
    };
    return ok(c, await svc(c).page(query));
  });

  app.get('/get/:email', async (c) => ok(c, await svc(c).get(email(c))));

  app.post('/add', async (c) => {
    const body = await parseBody(c, addBody);
    return ok(c, await svc(c).add(body), 'client created');
  });

  app.post('/update/:email', async (c) => {
    const key = email(c);
    return ok(c, await svc(c).update(key, await clientBody(c)), 'client updated');
  });

  app.post('/del/:email', async (c) => {
    const key = email(c);
    const { keepTraffic } = parseQuery(c, keepTrafficQuery);
    await svc(c).remove(key, keepTraffic === '1' || keepTraffic === 'true');
    return ok(c, null, 'client deleted');
  });

  app.post('/:email/attach', async (c) => {
    const key = email(c);
    const { inboundIds } = await parseBody(c, inboundIdsBody);
    return ok(c, await svc(c).attach(key, inboundIds), 'client attached');
  });

  app.post('/:email/detach', async (c) => {
    const key = email(c);
    const { inboundIds } = await parseBody(c, inboundIdsBody);
    return ok(c, await svc(c).detach(key, inboundIds), 'client detached');
  });

  app.post('/resetAllTraffics', async (c) => {
    await svc(c).resetAllTraffics();
    return ok(c, null, 'all client traffic reset');
  });

  app.post('/delDepleted', async (c) => ok(c, await svc(c).delDepleted(), 'depleted clients deleted'));

  app.post('/bulkAdjust', async (c) => {
    const body = await parseBody(c, z.object({
      emails: emailsBody,
      addDays: intish(-365_000, 365_000).optional(),
      addBytes: intish().optional(),
    }));
    return ok(c, await svc(c).bulkAdjust(body.emails, body.addDays ?? 0, body.addBytes ?? 0));
  });

  app.post('/bulkDel', async (c) => {
    const body = await parseBody(c, z.object({ emails: emailsBody, keepTraffic: boolish.optional() }));
    return ok(c, await svc(c).bulkDel(body.emails, body.keepTraffic ?? false));
  });

  app.post('/bulkCreate', async (c) => {
    let body = await rawBody(c);
    if (body && typeof body === 'object' && !Array.isArray(body) && Array.isArray((body as { clients?: unknown }).clients)) {
      body = (body as { clients: unknown[] }).clients;
    }
    if (!Array.isArray(body)) throw new InputError('body: must be an array of {client, inboundIds}');
    if (body.length > BULK_MAX) throw new InputError(`body: at most ${BULK_MAX} clients per request`);
    return ok(c, await svc(c).bulkCreate(body));
  });

  app.post('/bulkAssignGroup', async (c) => {
    const body = await parseBody(c, z.object({ emails: emailsBody, group: z.string({ error: 'must be a string' }).max(255) }));
    return ok(c, await svc(c).bulkAssignGroup(body.emails, body.group));
  });

  app.post('/bulkResetTraffic', async (c) => {
    const body = await parseBody(c, z.object({ emails: emailsBody }));
    return ok(c, await svc(c).bulkResetTraffic(body.emails));
  });

  // groups
  app.get('/groups', async (c) => ok(c, await groups(c).list()));
  app.get('/groups/:name/emails', async (c) => ok(c, await groups(c).emails(parseParams(c, nameParam).name)));
  app.post('/groups/create', async (c) => {
    const { name } = await parseBody(c, z.object({ name: z.string({ error: 'must be a string' }).max(255) }));
    return ok(c, await groups(c).create(name), 'group created');
  });
  app.post('/groups/rename', async (c) => {
    const body = await parseBody(c, z.object({
      oldName: z.string({ error: 'must be a string' }).max(255),
      newName: z.string({ error: 'must be a string' }).max(255),
    }));
    return ok(c, await groups(c).rename(body.oldName, body.newName), 'group renamed');
  });
  app.post('/groups/delete', async (c) => {
    const { name } = await parseBody(c, z.object({ name: z.string({ error: 'must be a string' }).max(255) }));
    return ok(c, await groups(c).remove(name), 'group deleted');
  });

  // traffic, IPs, online state
  app.post('/resetTraffic/:email', async (c) => {
    await svc(c).resetTraffic(email(c));
    return ok(c, null, 'client traffic reset');
  });
  app.post('/updateTraffic/:email', async (c) => {
    const key = email(c);
    const body = await parseBody(c, z.object({ upload: intish(0), download: intish(0) }));
    await svc(c).updateTraffic(key, body.upload, body.download);
    return ok(c, null, 'client traffic updated');
  });
  app.post('/ips/:email', async (c) => ok(c, await svc(c).ips(email(c))));
  app.post('/clearIps/:email', async (c) => {
    await svc(c).clearIps(email(c));
    return ok(c, null, 'client IPs cleared');
  });
  app.post('/onlines', async (c) => ok(c, await svc(c).onlines()));
  app.post('/lastOnline', async (c) => ok(c, await svc(c).lastOnline()));
  app.get('/traffic/:email', async (c) => ok(c, await svc(c).traffic(email(c))));

  return app;
}
