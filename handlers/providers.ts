// /panel/core/provider-a/:action and /panel/core/provider-b/:action: the tunnel and VPN service integrations
// (domain/providers). Form or JSON bodies; every answer is the envelope, secrets never in it.
import type { ZodType } from 'zod';
import { ok } from './envelope.js';
import { InputError } from './input.js';
import { createRoute, envelope, jsonBody, routes, z } from './route.js';
import { describeZodError } from '../domain/shared/zod-error.js';

const key = z.string().max(128).optional();
const regA = z.object({ privateKey: key, publicKey: key });
const licenseBody = z.object({ license: z.string({ error: 'is required' }).max(128) });
const countryBody = z.object({
  countryId: z
    .union([z.number(), z.string()], { error: 'is required' })
    .transform((v) => String(v).trim())
    .pipe(
      z
        .string()
        .regex(/^\d{1,6}$/, 'must be a numeric country id')
        .transform(Number),
    ),
  serverIds: z
    .union([z.array(z.union([z.number(), z.string()])), z.string()])
    .optional()
    .transform((v) =>
      v === undefined ? [] : (Array.isArray(v) ? v.map(String) : v.split(',')).map((x) => x.trim()).filter(Boolean),
    )
    .pipe(
      z
        .array(
          z
            .string()
            .regex(/^\d{1,10}$/, 'must be numeric server ids (comma-separated)')
            .transform(Number),
        )
        .max(100),
    ),
});
const tokenBody = z.object({ token: z.string({ error: 'is required' }).max(1024) });
const keyBody = z.object({ key: z.string({ error: 'is required' }).max(128) });

const A_ACTIONS = ['reg', 'license', 'config', 'data', 'del'] as const;
const B_ACTIONS = ['countries', 'servers', 'reg', 'setKey', 'data', 'del'] as const;
const actionParam = <T extends readonly [string, ...string[]]>(list: T) =>
  z.object({ action: z.enum(list, { error: `must be one of ${list.join(', ')}` }) });

/** `note` (why the outbound was not applied, or what the service refused) becomes the message. */
const msgOf = (r: unknown, done: string): string => {
  const note = r && typeof r === 'object' && 'note' in r ? String((r as { note: unknown }).note ?? '') : '';
  return note ? `${done}; ${note}` : done;
};

/** Each action reads its own fields; the route declares them all (optional) so the document lists them. */
function parseWith<T extends ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new InputError(describeZodError(r.error));
  return r.data;
}

const bodyA = z.object({ privateKey: key, publicKey: key, license: z.string().max(128).optional() }).passthrough();
const bodyB = z
  .object({
    countryId: z.union([z.number(), z.string()]).optional(),
    serverIds: z.union([z.array(z.union([z.number(), z.string()])), z.string()]).optional(),
    token: z.string().max(1024).optional(),
    key: z.string().max(128).optional(),
  })
  .passthrough();
const tags = ['providers'];
const anyObj = z.unknown();

export function providerRoutes() {
  return routes()
    .openapi(
      createRoute({
        method: 'post',
        path: '/provider-a/{action}',
        tags,
        summary: 'Tunnel service (WARP-like): reg [privateKey, publicKey], license (license), config, data, del',
        request: { params: actionParam(A_ACTIONS), body: { ...jsonBody(bodyA), required: false } },
        responses: envelope(anyObj),
      }),
      async (c) => {
        const { action } = c.req.valid('param');
        const body = c.req.valid('json');
        const a = c.var.services.providerA;
        switch (action) {
          case 'reg': {
            const r = await a.reg(parseWith(regA, body));
            return ok(
              c,
              r,
              msgOf(r, r.applied ? 'registered; the warp outbound is in the core template' : 'registered'),
            );
          }
          case 'license':
            return ok(c, await a.license(parseWith(licenseBody, body).license), 'licence applied');
          case 'config': {
            const r = await a.config();
            return ok(
              c,
              r,
              msgOf(r, r.applied ? 'the warp outbound is up to date in the core template' : 'device read'),
            );
          }
          case 'data':
            return ok(c, await a.data());
          case 'del': {
            const r = await a.del();
            return ok(
              c,
              r,
              msgOf(r, r.wasRegistered ? 'unregistered; the warp outbound is removed' : 'nothing was registered'),
            );
          }
        }
        throw new InputError('action: unknown');
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/provider-b/{action}',
        tags,
        summary:
          'VPN service (NordVPN-like): countries, servers (countryId, serverIds), reg (token), setKey (key), data, del',
        request: { params: actionParam(B_ACTIONS), body: { ...jsonBody(bodyB), required: false } },
        responses: envelope(anyObj),
      }),
      async (c) => {
        const { action } = c.req.valid('param');
        const body = c.req.valid('json');
        const b = c.var.services.providerB;
        switch (action) {
          case 'countries':
            return ok(c, await b.countries());
          case 'servers': {
            const { countryId, serverIds } = parseWith(countryBody, body);
            const r = await b.servers(countryId, serverIds);
            return ok(c, r, 'added' in r ? `${r.added!.length} outbound(s) in the core template` : '');
          }
          case 'reg':
            return ok(c, await b.reg(parseWith(tokenBody, body).token), 'private key fetched and stored');
          case 'setKey':
            return ok(c, await b.setKey(parseWith(keyBody, body).key), 'private key stored');
          case 'data':
            return ok(c, await b.data());
          case 'del': {
            const r = await b.del();
            return ok(c, r, `key forgotten; ${r.removedOutbounds.length} outbound(s) removed`);
          }
        }
        throw new InputError('action: unknown');
      },
    );
}
