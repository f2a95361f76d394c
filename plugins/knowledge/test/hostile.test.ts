// Text PostgreSQL cannot store or parse (NUL, lone surrogates) in a source or a query: a 400, never a 500.
import t from 'tap';
import { pages, startKnowledgeWorld } from './world.js';

t.test('hostile text', async (t) => {
  const w = await startKnowledgeWorld(t);
  for (const text of ['nul \u0000 byte', 'lone \ud800 surrogate', 'lone \udfff low']) {
    const put = await w.put('hostile/x', { chunks: pages(text) });
    t.equal(put.statusCode, 400, `PUT ${JSON.stringify(text)}: ${put.body}`);
    const title = await w.put('hostile/y', { title: text, chunks: pages('fine') });
    t.equal(title.statusCode, 400, `title ${JSON.stringify(text)}`);
    const search = await w.search({ query: text });
    t.ok(search.statusCode === 400 || search.statusCode === 200, `search ${JSON.stringify(text)}: ${search.statusCode}`);
  }
  t.equal((await w.put('hostile/ok', { chunks: pages('emoji 😀 fine') })).statusCode, 201, 'a surrogate pair is fine');
});
