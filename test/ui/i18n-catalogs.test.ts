// Every string of the UI exists in every language: each `*.i18n.ts` catalog under ui/src is loaded and compared
// key by key with English (same keys, nothing empty, the same {placeholders}). The compiler checks the keys too;
// this test also catches an empty or untranslated-placeholder string and a catalog file nobody imports yet.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LANGS, catalogs, type Catalog } from '../../ui/src/i18n/index.js';

const UI_SRC = join(import.meta.dirname, '../../ui/src');

function catalogFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? catalogFiles(join(dir, e.name)) : e.name.endsWith('.i18n.ts') ? [join(dir, e.name)] : [],
  );
}

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('UI translations', () => {
  const files = catalogFiles(UI_SRC);

  it('finds the catalogs', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  for (const file of files) {
    it(`${relative(UI_SRC, file)} has every key in every language`, async () => {
      const before = catalogs.length;
      await import(pathToFileURL(file).href);
      const mine: Catalog<string>[] = catalogs.slice(before);
      expect(mine.length, 'the file registers its catalog with messages()').toBeGreaterThan(0);
      const problems: string[] = [];
      for (const cat of mine) {
        const keys = Object.keys(cat.en);
        for (const [code] of LANGS) {
          const table = cat[code] as Record<string, string> | undefined;
          if (!table) {
            problems.push(`${code}: missing`);
            continue;
          }
          for (const k of keys) {
            const s = table[k];
            if (typeof s !== 'string' || !s.trim()) problems.push(`${code}.${k}: missing or empty`);
            else if (placeholders(s).join() !== placeholders(cat.en[k]).join())
              problems.push(`${code}.${k}: placeholders ${placeholders(s)} differ from English`);
          }
          for (const k of Object.keys(table)) if (!(k in cat.en)) problems.push(`${code}.${k}: not in English`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});
