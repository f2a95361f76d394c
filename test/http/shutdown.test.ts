// A server that is closing finishes the requests it has and refuses the ones still arriving on its open keep-alive
// connections with Quad's own 503 (reason `shutting_down`, Retry-After, the headers every answer carries), on the
// API port and on the tool port alike.
import t from 'tap';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { defineModule, defineTool, Type, type RoutesPlugin } from '@quad/core';
import { startTestApp } from '@quad/core/testing';

/** Holds the requests that reach it until released; `arrived` resolves when one is held. */
class Gate {
  private arrive!: () => void;
  readonly arrived = new Promise<void>((resolve) => { this.arrive = resolve; });
  private open!: () => void;
  private readonly opened = new Promise<void>((resolve) => { this.open = resolve; });
  async hold() {
    this.arrive();
    await this.opened;
    return { done: true };
  }
  release() { this.open(); }
}
const gates = { api: new Gate(), mcp: new Gate() };

const routes: RoutesPlugin = async (app) => {
  app.get('/api/hold/:org/wait', { config: { auth: 'public' }, schema: { params: Type.Object({ org: Type.String() }) } }, () => gates.api.hold());
};
const hold = defineModule({
  name: 'hold', title: 'Hold', description: 'Requests that wait until the test releases them', category: 'Tests', routes,
  scopes: [{ name: 'hold:read', description: 'Wait' }],
  tools: [defineTool({ name: 'hold.wait', description: 'Waits until released', scope: 'hold:read', input: Type.Object({}), handler: () => gates.mcp.hold() })],
});

interface Answer { status: number; headers: Record<string, string>; body: string }

/** Every answer on `socket` until the server closes it, parsed. */
async function answersUntilClosed(socket: Socket): Promise<Answer[]> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  let rest = Buffer.concat(chunks).toString('latin1');
  const answers: Answer[] = [];
  while (rest.length) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    rest = rest.slice(headEnd + 4);
    // Both ports answer with a content-length (a streamed answer would need a chunked reader here).
    if (headers['content-length'] === undefined) throw new Error(`an answer without content-length: ${statusLine}`);
    const length = Number(headers['content-length']);
    const body = rest.slice(0, length);
    rest = rest.slice(length);
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body });
  }
  return answers;
}

/** Resolves once `port` takes no new connection: the server has stopped listening, so it is closing. */
async function refusing(port: number) {
  for (;;) {
    const socket = connect(port, '127.0.0.1');
    const refused = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(false));
      socket.once('error', () => resolve(true)); // refused, or reset by the closing listener
    });
    socket.destroy();
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The request held by `gate`; fails with the answer if `socket` is answered before the request is held. */
async function heldOn(gate: Gate, socket: Socket) {
  const answered = once(socket, 'data').then(([data]) => { throw new Error(`answered before it was held: ${String(data)}`); });
  await Promise.race([gate.arrived, answered]);
}

const request = (port: number, method: string, path: string, headers: Record<string, string> = {}, body = '') =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) }).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;

t.test('a closing server finishes what it has and refuses what still arrives', async (t) => {
  const quad = await startTestApp(t, { plugins: [hold], listen: true });
  t.teardown(() => Object.values(gates).forEach((gate) => gate.release())); // a failed test does not hold the close
  const org = await quad.createOrg({ prefix: 'acm', modules: { hold: true } });
  const { token } = await quad.issueToken(org.id, { scopes: ['hold:read'] });
  const apiPort = (quad.api.server.address() as { port: number }).port;
  const mcpPort = (quad.mcp!.server.address() as { port: number }).port;

  // One request held on each port, on a keep-alive connection that stays open because it is busy.
  const api = connect(apiPort, '127.0.0.1');
  api.write(request(apiPort, 'GET', '/api/hold/acm/wait'));
  const mcp = connect(mcpPort, '127.0.0.1');
  const mcpHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const call = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold.wait', arguments: {} } });
  mcp.write(request(mcpPort, 'POST', '/mcp', mcpHeaders, call(1)));
  await Promise.all([heldOn(gates.api, api), heldOn(gates.mcp, mcp)]);
  const apiAnswers = answersUntilClosed(api);
  const mcpAnswers = answersUntilClosed(mcp);

  // The API closes first (it waits for its request in flight), then the tool port.
  const closed = quad.close();
  await refusing(apiPort);
  api.write(request(apiPort, 'GET', '/api/hold/acm/wait'));
  gates.api.release();
  const [held, refused] = await apiAnswers;
  t.match(held, { status: 200, body: '{"done":true}' }, 'the API answers the request it held');
  t.equal(refused.status, 503, 'and refuses the one that arrived while it closed');
  t.same(JSON.parse(refused.body), { error: 'This server is shutting down: send the request again', reason: 'shutting_down', retry_after: 1 });
  t.match(refused.headers, {
    'retry-after': '1', connection: 'close', 'cache-control': 'no-store', 'x-request-id': /.+/,
    'content-security-policy': /default-src 'none'/, 'x-content-type-options': 'nosniff',
  }, 'with Retry-After, a closed connection and the headers of every answer');

  await refusing(mcpPort);
  mcp.write(request(mcpPort, 'POST', '/mcp', mcpHeaders, call(2)));
  gates.mcp.release();
  const [heldCall, refusedCall] = await mcpAnswers;
  t.equal(heldCall.status, 200, 'the tool port answers the call it held');
  t.match(JSON.parse(heldCall.body), { id: 1, result: { structuredContent: { done: true } } });
  t.equal(refusedCall.status, 503, 'and refuses the one that arrived while it closed');
  t.same(JSON.parse(refusedCall.body), {
    jsonrpc: '2.0', id: null,
    error: { code: -32603, message: 'This server is shutting down: send the request again', data: { reason: 'shutting_down', retry_after: 1 } },
  }, 'as a JSON-RPC error');
  t.match(refusedCall.headers, { 'retry-after': '1', connection: 'close', 'cache-control': 'no-store', 'x-request-id': /.+/ });
  await closed;
});
