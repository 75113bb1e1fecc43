/**
 * The real-core end-to-end harness (reusable by every e2e suite).
 *
 * - `testCoreBin()`: PANEL_TEST_CORE_BIN, or null after printing ONE skip line; with CI=true a missing binary throws.
 *   Use it as `describe.skipIf(!bin)(…)`.
 * - `startPanel({coreBin})`: the built panel in a temp data dir on free ports, a Bearer token, `api(method, path,
 *   body)`, `corePid()` (from the pid file), `stop(signal)`.
 * - `addInbound(panel, {...})` / `addClient(panel, email, inboundId, extra)` / `getClient(panel, email)`:
 *   create records through the API and return what was stored (secrets included).
 * - `startTarget()`: a local HTTP server (`/bytes/N`, `/slow/N?ms=T`).
 * - proxy clients: `v2rayClient(bin, vmessOutbound(port, id))` (also vless/trojan outbounds), `ssLocal(port, pw,
 *   method)`, `trojanClient(port, pw, selfSignedCert())`; each gives a local `socksPort`.
 * - `curlSocks(socksPort, url)` / `curlSocksEventually(...)`: download through a client, returning the bytes.
 * - `freePorts(n)`: loopback ports, all probe sockets held until every port is taken.
 * - `killAll()` in afterAll: kills every process the file started (by pid).
 */
export * from './core-bin.js';
export * from './ports.js';
export * from './procs.js';
export * from './panel.js';
export * from './target.js';
export * from './fetch-socks.js';
export * from './clients.js';
export * from './records.js';
