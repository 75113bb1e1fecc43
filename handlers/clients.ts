// /panel/api/clients/*: clients keyed by email, groups, bulk operations, traffic, IPs, online state.
// (/links/:email and /subLinks/:subId live in handlers/client-links.ts.) Schemas: domain/clients/input.ts.
import type { Context } from 'hono';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { createRoute, envelope, jsonBody, noObj, routes, z } from './route.js';
import {
  addBody,
  bulkAdjustBody,
  bulkAssignGroupBody,
  bulkCreateBody,
  bulkDelBody,
  bulkEmailsBody,
  clientUpdateBody,
  emailParam,
  groupNameBody,
  groupNameParam,
  groupRenameBody,
  inboundIdsBody,
  keepTrafficQuery,
  pageQuery,
  updateTrafficBody,
} from '../domain/clients/input.js';
import {
  affectedObj,
  bulkCreateObj,
  bulkResultObj,
  clientGetObj,
  clientPageObj,
  clientTrafficObj,
  clientViewObj,
  groupObj,
  inboundIdsObj,
} from '../domain/clients/output.js';

const tags = ['clients'];
const byEmail = { params: emailParam };

export function clientRoutes() {
  const svc = (c: Context<AppEnv>) => c.var.services.clients;
  const groups = (c: Context<AppEnv>) => c.var.services.groups;

  return (
    routes()
      .openapi(
        createRoute({
          method: 'get',
          path: '/list',
          tags,
          summary: 'Every client with its inbounds and counters',
          responses: envelope(z.array(clientViewObj)),
        }),
        async (c) => ok(c, await svc(c).list()),
      )

      .openapi(
        createRoute({
          method: 'get',
          path: '/list/paged',
          tags,
          summary: 'One page of clients, with the summary over all clients',
          request: { query: pageQuery },
          responses: envelope(clientPageObj),
        }),
        async (c) => ok(c, await svc(c).page(c.req.valid('query'))),
      )

      .openapi(
        createRoute({
          method: 'get',
          path: '/get/{email}',
          tags,
          summary: 'One client and the inbounds it is attached to',
          request: byEmail,
          responses: envelope(clientGetObj),
        }),
        async (c) => ok(c, await svc(c).get(c.req.valid('param').email)),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/add',
          tags,
          summary: 'Create a client attached to one or more inbounds',
          description: '`client` and `inboundIds` may also be sent as JSON text (form posts).',
          request: {
            body: jsonBody(addBody, undefined, {
              client: {
                email: 'alice@example.com',
                enable: true,
                totalGB: 10 * 1024 ** 3,
                expiryTime: 0,
                limitIp: 2,
                comment: 'example',
              },
              inboundIds: [1],
            }),
          },
          responses: envelope(clientViewObj),
        }),
        async (c) => ok(c, await svc(c).add(c.req.valid('json')), 'client created'),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/update/{email}',
          tags,
          summary: 'Replace a client’s writable fields',
          description: 'The body is the client object; `{client: {...}}` (or its JSON text) is accepted too.',
          request: {
            ...byEmail,
            body: jsonBody(clientUpdateBody, undefined, {
              email: 'alice@example.com',
              enable: false,
              comment: 'paused',
            }),
          },
          responses: envelope(clientViewObj),
        }),
        async (c) => ok(c, await svc(c).update(c.req.valid('param').email, c.req.valid('json')), 'client updated'),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/del/{email}',
          tags,
          summary: 'Delete a client (its counters too, unless keepTraffic)',
          request: { ...byEmail, query: keepTrafficQuery },
          responses: envelope(noObj),
        }),
        async (c) => {
          await svc(c).remove(c.req.valid('param').email, c.req.valid('query').keepTraffic);
          return ok(c, null, 'client deleted');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/{email}/attach',
          tags,
          summary: 'Attach a client to more inbounds',
          request: { ...byEmail, body: jsonBody(inboundIdsBody) },
          responses: envelope(inboundIdsObj),
        }),
        async (c) =>
          ok(c, await svc(c).attach(c.req.valid('param').email, c.req.valid('json').inboundIds), 'client attached'),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/{email}/detach',
          tags,
          summary: 'Detach a client from inbounds',
          request: { ...byEmail, body: jsonBody(inboundIdsBody) },
          responses: envelope(inboundIdsObj),
        }),
        async (c) =>
          ok(c, await svc(c).detach(c.req.valid('param').email, c.req.valid('json').inboundIds), 'client detached'),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/resetAllTraffics',
          tags,
          summary: 'Zero every client’s counters',
          responses: envelope(noObj),
        }),
        async (c) => {
          await svc(c).resetAllTraffics();
          return ok(c, null, 'all client traffic reset');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/delDepleted',
          tags,
          summary: 'Delete every depleted client',
          responses: envelope(bulkResultObj),
        }),
        async (c) => ok(c, await svc(c).delDepleted(), 'depleted clients deleted'),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/bulkAdjust',
          tags,
          summary: 'Add days and/or bytes to many clients',
          request: { body: jsonBody(bulkAdjustBody, undefined, { emails: ['alice@example.com'], addDays: 30 }) },
          responses: envelope(bulkResultObj),
        }),
        async (c) => {
          const body = c.req.valid('json');
          return ok(c, await svc(c).bulkAdjust(body.emails, body.addDays ?? 0, body.addBytes ?? 0));
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/bulkDel',
          tags,
          summary: 'Delete many clients',
          request: { body: jsonBody(bulkDelBody) },
          responses: envelope(bulkResultObj),
        }),
        async (c) => {
          const body = c.req.valid('json');
          return ok(c, await svc(c).bulkDel(body.emails, body.keepTraffic ?? false));
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/bulkCreate',
          tags,
          summary: 'Create many clients; bad items are skipped with a reason',
          request: {
            body: jsonBody(bulkCreateBody, undefined, [
              { client: { email: 'bob@example.com' }, inboundIds: [1] },
              { client: { email: 'carol@example.com' }, inboundIds: [1] },
            ]),
          },
          responses: envelope(bulkCreateObj),
        }),
        async (c) => ok(c, await svc(c).bulkCreate(c.req.valid('json'))),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/bulkAssignGroup',
          tags,
          summary: 'Put many clients in a group ("" removes them from theirs)',
          request: {
            body: jsonBody(bulkAssignGroupBody, undefined, { emails: ['alice@example.com'], group: 'family' }),
          },
          responses: envelope(affectedObj),
        }),
        async (c) => {
          const body = c.req.valid('json');
          return ok(c, await svc(c).bulkAssignGroup(body.emails, body.group));
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/bulkResetTraffic',
          tags,
          summary: 'Zero many clients’ counters',
          request: { body: jsonBody(bulkEmailsBody) },
          responses: envelope(bulkResultObj),
        }),
        async (c) => ok(c, await svc(c).bulkResetTraffic(c.req.valid('json').emails)),
      )

      // groups
      .openapi(
        createRoute({
          method: 'get',
          path: '/groups',
          tags: ['groups'],
          summary: 'Every group with its client count',
          responses: envelope(z.array(groupObj)),
        }),
        async (c) => ok(c, await groups(c).list()),
      )

      .openapi(
        createRoute({
          method: 'get',
          path: '/groups/{name}/emails',
          tags: ['groups'],
          summary: 'The emails of a group’s clients',
          request: { params: groupNameParam },
          responses: envelope(z.array(z.string())),
        }),
        async (c) => ok(c, await groups(c).emails(c.req.valid('param').name)),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/groups/create',
          tags: ['groups'],
          summary: 'Create an empty group',
          request: { body: jsonBody(groupNameBody, undefined, { name: 'friends' }) },
          responses: envelope(groupObj),
        }),
        async (c) => ok(c, await groups(c).create(c.req.valid('json').name), 'group created'),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/groups/rename',
          tags: ['groups'],
          summary: 'Rename a group (its clients follow)',
          request: { body: jsonBody(groupRenameBody) },
          responses: envelope(affectedObj),
        }),
        async (c) => {
          const body = c.req.valid('json');
          return ok(c, await groups(c).rename(body.oldName, body.newName), 'group renamed');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/groups/delete',
          tags: ['groups'],
          summary: 'Delete a group (its clients stay, ungrouped)',
          request: { body: jsonBody(groupNameBody) },
          responses: envelope(affectedObj),
        }),
        async (c) => ok(c, await groups(c).remove(c.req.valid('json').name), 'group deleted'),
      )

      // traffic, IPs, online state
      .openapi(
        createRoute({
          method: 'post',
          path: '/resetTraffic/{email}',
          tags,
          summary: 'Zero one client’s counters',
          request: byEmail,
          responses: envelope(noObj),
        }),
        async (c) => {
          await svc(c).resetTraffic(c.req.valid('param').email);
          return ok(c, null, 'client traffic reset');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/updateTraffic/{email}',
          tags,
          summary: 'Set one client’s counters',
          request: { ...byEmail, body: jsonBody(updateTrafficBody) },
          responses: envelope(noObj),
        }),
        async (c) => {
          const body = c.req.valid('json');
          await svc(c).updateTraffic(c.req.valid('param').email, body.upload, body.download);
          return ok(c, null, 'client traffic updated');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/ips/{email}',
          tags,
          summary: 'Source IPs recorded for a client, oldest first',
          request: byEmail,
          responses: envelope(z.array(z.string())),
        }),
        async (c) => ok(c, await svc(c).ips(c.req.valid('param').email)),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/clearIps/{email}',
          tags,
          summary: 'Forget a client’s recorded IPs',
          request: byEmail,
          responses: envelope(noObj),
        }),
        async (c) => {
          await svc(c).clearIps(c.req.valid('param').email);
          return ok(c, null, 'client IPs cleared');
        },
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/onlines',
          tags,
          summary: 'Emails of the clients online now',
          responses: envelope(z.array(z.string())),
        }),
        async (c) => ok(c, await svc(c).onlines()),
      )

      .openapi(
        createRoute({
          method: 'post',
          path: '/lastOnline',
          tags,
          summary: 'Last-online time (Unix seconds) per email',
          responses: envelope(z.record(z.string(), z.number())),
        }),
        async (c) => ok(c, await svc(c).lastOnline()),
      )

      .openapi(
        createRoute({
          method: 'get',
          path: '/traffic/{email}',
          tags,
          summary: 'A client’s counters (also after del with keepTraffic)',
          request: byEmail,
          responses: envelope(clientTrafficObj),
        }),
        async (c) => ok(c, await svc(c).traffic(c.req.valid('param').email)),
      )
  );
}
