// /panel/api/custom-geo/*: custom geoip/geosite sources, their aliases, downloads.
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { parseBody, parseParams } from './input.js';
import { geoInput } from '../domain/geo/model.js';

const idParam = z.object({
  id: z.string().regex(/^\d{1,9}$/, 'must be a positive integer').transform(Number).refine((n) => n > 0, 'must be a positive integer'),
});

export function customGeoRoutes() {
  const app = new Hono<AppEnv>();
  const svc = (c: Context<AppEnv>) => c.var.services.geo;
  const id = (c: Context<AppEnv>) => parseParams(c, idParam).id;

  app.get('/list', async (c) => ok(c, await svc(c).list()));
  app.get('/aliases', async (c) => ok(c, await svc(c).aliases()));

  app.post('/add', async (c) => {
    const body = await parseBody(c, geoInput);
    return ok(c, await svc(c).add(body), 'custom geo source added and downloaded');
  });

  app.post('/update/:id', async (c) => {
    const key = id(c);
    const body = await parseBody(c, geoInput);
    return ok(c, await svc(c).update(key, body), 'custom geo source updated');
  });

  app.post('/delete/:id', async (c) => ok(c, await svc(c).remove(id(c)), 'custom geo source deleted'));
  app.post('/download/:id', async (c) => ok(c, await svc(c).download(id(c)), 'custom geo source downloaded'));

  app.post('/update-all', async (c) => {
    const res = await svc(c).updateAll();
    const msg = res.failed.length ? `${res.succeeded.length} updated, ${res.failed.length} failed` : `${res.succeeded.length} updated`;
    return ok(c, res, msg);
  });

  return app;
}
