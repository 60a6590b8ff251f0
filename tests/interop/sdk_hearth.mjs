// What sdk_community.mjs and sdk_kit.mjs share: the running hearth they drive through the
// SDK (HEARTH_URL; tokens minted with `hearth jwt mint`, HEARTH_BIN on HEARTH_DB), and
// the check that counts what passed.

import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';

/** Points the SDK's `http` at HEARTH_URL; returns that base URL and `as(id)`, which makes
 * the calls after it as user `id` (anonymous for a falsy id). */
export function drive(http, defaultDb) {
  const base = process.env.HEARTH_URL ?? 'http://127.0.0.1:18455';
  const bin = process.env.HEARTH_BIN ?? 'hearth';
  const db = process.env.HEARTH_DB ?? defaultDb;
  const mint = (id) =>
    execFileSync(bin, ['--db', db, 'jwt', 'mint', '--user-id', String(id)]).toString().trim();
  http.setBasePortal(base);
  return { base, as: (id) => http.setAuthorizeToken(id ? mint(id) : null) };
}

let passed = 0;

/** Asserts `cond` (the script stops at the first disagreement) and counts it. */
export const ok = (cond, what) => {
  assert.ok(cond, what);
  passed += 1;
  console.log('ok', what);
};

/** How many checks passed so far. */
export const checks = () => passed;
