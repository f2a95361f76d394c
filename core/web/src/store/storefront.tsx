// /store/<org>: the catalog (products in stock, GET /store, for everyone); a signed-in storefront member also has a
// cart, their points (GET /wallet/<email>) and orders (GET /orders/<email>), and checks out (POST /checkout). The
// API's refusals are said in words: too few points (400), prices changed since the catalog was read (409
// checkout_price_mismatch: the catalog is read again), not enough stock (409 out_of_stock).
import { useEffect, useState } from 'react';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { ApiError } from '../sdk/api.js';
import { Button } from '../sdk/ui/button.js';
import { ErrorNote, Loading } from '../sdk/ui/notes.js';
import { getMemberSession, setMemberSession, type MemberSession } from './member-session.js';
import {
  checkoutPath, ordersPath, signedOutError, storeFetch, storePath, walletPath,
  type CheckoutAnswer, type Order, type Product, type StoreAnswer, type Wallet,
} from './store-api.js';

const client = new QueryClient({ defaultOptions: { queries: { staleTime: 30_000, refetchOnWindowFocus: false, retry: false } } });

export function StorefrontPage({ org }: { org: string }) {
  return <QueryClientProvider client={client}><Storefront org={org} /></QueryClientProvider>;
}

type Cart = Record<number, number>;
interface Said { kind: 'ok' | 'error'; text: string }

function Storefront({ org }: { org: string }) {
  const [session, setSession] = useState<MemberSession | null>(() => getMemberSession(org));
  const catalog = useQuery({ queryKey: ['store', org], queryFn: () => storeFetch<StoreAnswer>(storePath(org)) });
  const [cart, setCart] = useState<Cart>({});
  const [said, setSaid] = useState<Said | null>(null);
  const name = catalog.data?.org.name ?? org;
  useEffect(() => { document.title = `${name} store`; }, [name]);

  const signOut = () => { setMemberSession(org, null); setSession(null); setCart({}); };
  const products = catalog.data?.products ?? [];
  const add = (p: Product) => {
    setSaid(null);
    setCart((c) => ({ ...c, [p.id]: Math.min((c[p.id] ?? 0) + 1, p.stock) }));
  };

  return (
    <>
      <header className="s-header">
        <a className="s-brand" href={`/store/${encodeURIComponent(org)}`}>{name}</a>
        {session ? (
          <span className="s-who">
            <span>Signed in as <strong>{session.email}</strong></span>
            <Button onClick={signOut}>Sign out</Button>
          </span>
        ) : <a className="q-button q-button-primary" href={`/store/${encodeURIComponent(org)}/login`}>Sign in</a>}
      </header>
      <main id="content" className="s-layout">
        <section aria-labelledby="catalog-title" className="s-catalog">
          <h1 id="catalog-title">Store</h1>
          {catalog.isPending ? <Loading label="Loading the products…" />
            : catalog.error ? <ErrorNote title="The store could not be loaded" error={catalog.error instanceof ApiError && catalog.error.status === 404 ? 'There is no store at this address.' : catalog.error} />
              : products.length === 0 ? <p>Nothing is in stock right now. Come back soon.</p>
                : (
                  <ul className="s-products" aria-label="Products">
                    {products.map((p) => (
                      <li key={p.id} className="s-product">
                        {p.image_url && <img src={p.image_url} alt="" className="s-image" loading="lazy" />}
                        <h2 className="s-product-name">{p.name}</h2>
                        {p.category && <p className="s-muted">{p.category}</p>}
                        {p.description && <p>{p.description}</p>}
                        <p className="s-price"><strong>{p.price} points</strong> <span className="s-muted">· {p.stock} left</span></p>
                        {session && (
                          <Button variant="primary" onClick={() => add(p)} disabled={(cart[p.id] ?? 0) >= p.stock} aria-label={`Add ${p.name} to the cart`}>
                            {(cart[p.id] ?? 0) >= p.stock ? 'All in your cart' : 'Add to cart'}
                          </Button>
                        )}
                      </li>
                    ))}
                  </ul>
                )}
          {!session && catalog.data && <p><a href={`/store/${encodeURIComponent(org)}/login`}>Sign in</a> to spend your points.</p>}
        </section>
        {session && (
          <MemberPanel org={org} session={session} products={products} cart={cart} setCart={setCart} said={said} setSaid={setSaid}
            onSignedOut={() => { signOut(); setSaid({ kind: 'error', text: 'Your sign-in has expired. Sign in again to order.' }); }}
            reloadCatalog={() => catalog.refetch()} />
        )}
        {!session && said && <p role="alert" className="q-note q-note-error">{said.text}</p>}
      </main>
    </>
  );
}

function checkoutError(err: unknown, products: Product[]): string {
  if (!(err instanceof ApiError)) return 'The store could not be reached. Check your connection and try again.';
  const body = err.body ?? {};
  if (err.reason === 'insufficient_points') return `You have ${body.balance ?? 'too few'} points; this order costs ${body.total ?? 'more'}.`;
  if (err.reason === 'checkout_price_mismatch') return 'Prices changed since you opened the store. The cart shows the new prices: check it and order again.';
  if (err.reason === 'out_of_stock') {
    const product = products.find((p) => p.id === body.product_id);
    return `${product?.name ?? 'A product'} has only ${body.available ?? 'a few'} left. The cart was updated: check it and order again.`;
  }
  if (err.reason === 'product_not_found') return 'A product in your cart is no longer sold. It was removed from the cart.';
  return err.message;
}

function MemberPanel({ org, session, products, cart, setCart, said, setSaid, onSignedOut, reloadCatalog }: {
  org: string; session: MemberSession; products: Product[]; cart: Cart; setCart: (update: (c: Cart) => Cart) => void;
  said: Said | null; setSaid: (s: Said | null) => void; onSignedOut: () => void; reloadCatalog: () => Promise<unknown>;
}) {
  const wallet = useQuery({ queryKey: ['wallet', org, session.email], queryFn: () => storeFetch<Wallet>(walletPath(org, session.email), { token: session.token }) });
  const orders = useQuery({ queryKey: ['orders', org, session.email], queryFn: () => storeFetch<{ orders: Order[] }>(ordersPath(org, session.email), { token: session.token }) });
  const [busy, setBusy] = useState(false);
  const expired = [wallet.error, orders.error].some(signedOutError);
  useEffect(() => { if (expired) onSignedOut(); }, [expired, onSignedOut]);

  const lines = Object.entries(cart).map(([id, quantity]) => ({ product: products.find((p) => p.id === Number(id)), quantity }))
    .filter((l): l is { product: Product; quantity: number } => l.product !== undefined && l.quantity > 0);
  const total = lines.reduce((sum, l) => sum + l.product.price * l.quantity, 0);
  const balance = wallet.data?.balance;
  const setQuantity = (id: number, quantity: number) => setCart((c) => {
    const next = { ...c };
    if (quantity > 0) next[id] = quantity; else delete next[id];
    return next;
  });

  /** Keep the cart within what the catalog now has (after it is read again). */
  async function refreshCatalog() {
    const fresh = await reloadCatalog() as { data?: StoreAnswer };
    const now = fresh.data?.products ?? [];
    setCart((c) => Object.fromEntries(Object.entries(c).flatMap(([id, q]) => {
      const p = now.find((x) => x.id === Number(id));
      return p ? [[id, Math.min(q, p.stock)]] : [];
    }).filter(([, q]) => Number(q) > 0)));
  }

  async function checkout() {
    setBusy(true); setSaid(null);
    try {
      const answer = await storeFetch<CheckoutAnswer>(checkoutPath(org), {
        method: 'POST', token: session.token,
        body: { items: lines.map((l) => ({ product_id: l.product.id, quantity: l.quantity, price: l.product.price })), total },
      });
      setCart(() => ({}));
      setSaid({ kind: 'ok', text: `Order #${answer.order.id} placed: ${answer.points_deducted} points spent. You have ${answer.balance} points left.` });
      await Promise.all([wallet.refetch(), orders.refetch(), reloadCatalog()]);
    } catch (err) {
      if (signedOutError(err)) return onSignedOut();
      setSaid({ kind: 'error', text: checkoutError(err, products) });
      if (err instanceof ApiError && ['checkout_price_mismatch', 'out_of_stock', 'product_not_found'].includes(err.reason ?? '')) await refreshCatalog();
      else await wallet.refetch();
    } finally {
      setBusy(false);
    }
  }

  return (
    <aside className="s-side" aria-label="Your points, cart and orders">
      <section aria-labelledby="points-title" className="s-panel">
        <h2 id="points-title">Your points</h2>
        {wallet.isPending ? <Loading /> : wallet.error ? <ErrorNote error={wallet.error} title="Your points could not be loaded" />
          : <p className="s-balance" data-testid="balance">{wallet.data.balance} points</p>}
      </section>
      <section aria-labelledby="cart-title" className="s-panel">
        <h2 id="cart-title">Cart</h2>
        {lines.length === 0 ? <p className="s-muted">Your cart is empty.</p> : (
          <ul className="s-cart" aria-label="Cart">
            {lines.map(({ product, quantity }) => (
              <li key={product.id} className="s-line">
                <span className="s-line-name">{product.name}</span>
                <label className="s-qty">
                  <span className="q-visually-hidden">Quantity of {product.name}</span>
                  <input type="number" className="q-control" min={0} max={product.stock} value={quantity}
                    onChange={(e) => setQuantity(product.id, Math.max(0, Math.min(product.stock, Math.floor(Number(e.target.value) || 0))))} />
                </label>
                <span className="s-line-total">{product.price * quantity} pts</span>
                <Button onClick={() => setQuantity(product.id, 0)} aria-label={`Remove ${product.name} from the cart`}>Remove</Button>
              </li>
            ))}
          </ul>
        )}
        <p className="s-total">Total: <strong>{total} points</strong></p>
        {balance !== undefined && total > balance && <p className="s-muted">You need {total - balance} more points for this cart.</p>}
        <Button variant="primary" onClick={checkout} disabled={busy || lines.length === 0}>{busy ? 'Ordering…' : 'Check out'}</Button>
        {said && (said.kind === 'ok'
          ? <p role="status" className="s-ok">{said.text}</p>
          : <p role="alert" className="q-note q-note-error">{said.text}</p>)}
      </section>
      <section aria-labelledby="orders-title" className="s-panel">
        <h2 id="orders-title">Your orders</h2>
        {orders.isPending ? <Loading /> : orders.error ? <ErrorNote error={orders.error} title="Your orders could not be loaded" />
          : orders.data.orders.length === 0 ? <p className="s-muted">No orders yet.</p> : (
            <ul className="s-orders" aria-label="Your orders">
              {orders.data.orders.map((o) => (
                <li key={o.id}>
                  <strong>Order #{o.id}</strong> · {o.status} · {o.total} points
                  <div className="s-muted">{o.items.map((i) => `${i.quantity} × ${i.name}`).join(', ')} · {new Date(o.created_at).toLocaleDateString()}</div>
                  {o.message && <div>Message: {o.message}</div>}
                </li>
              ))}
            </ul>
          )}
      </section>
    </aside>
  );
}
