// /panel/api/nodes/*: remote panels — CRUD, pause/resume, probes (saved or not) and per-node cpu/mem history.
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from './context.js';
import { ok } from './envelope.js';
import { parseBody, parseParams } from './input.js';
import { nodeInput, nodeTestInput, setEnableInput } from '../domain/nodes/model.js';

const idParam = z.object({
  id: z.string().regex(/^\d{1,9}$/, 'must be a positive integer').transform(Number).refine((n) => n > 0, 'must be a positive integer'),
});

const historyParams = z.object({
  id: idParam.shape.id,
  metric: z.string().max(64),
  bucket: z.string().max(16),
});

export function nodeRoutes() {
  const app = new Hono<AppEnv>();
  const svc = (c: Context<AppEnv>) => c.var.services.nodes;
  const id = (c: Context<AppEnv>) => parseParams(c, idParam).id;

  app.get('/list', async (c) => ok(c, await svc(c).list()));
  app.get('/get/:id', async (c) => ok(c, await svc(c).get(id(c))));

  app.post('/add', async (c) => {
    const body = await parseBody(c, nodeInput);
    return ok(c, await svc(c).add(body), 'node added');
  });

  app.post('/update/:id', async (c) => {
    const key = id(c);
    const body = await parseBody(c, nodeInput);
    return ok(c, await svc(c).update(key, body), 'node updated');
  });

  app.post('/del/:id', async (c) => {
    await svc(c).remove(id(c));
    return ok(c, null, 'node deleted; inbounds bound to it were not migrated');
  });

  app.post('/setEnable/:id', async (c) => {
    const key = id(c);
    const { enable } = await parseBody(c, setEnableInput);
    await svc(c).setEnable(key, enable);
    return ok(c, null, enable ? 'node enabled' : 'node paused');
  });

  app.post('/test', async (c) => ok(c, await svc(c).test(await parseBody(c, nodeTestInput))));
  app.post('/probe/:id', async (c) => ok(c, await svc(c).probe(id(c))));

  app.get('/history/:id/:metric/:bucket', async (c) => {
    const p = parseParams(c, historyParams);
    return ok(c, await svc(c).history(p.id, p.metric, p.bucket));
  });

  return app;
}
