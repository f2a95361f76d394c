// The store module's dashboard page (/dashboard/store: products and orders; /dashboard/store/orders/<id>: one order)
// and Overview card, built into web/dist/index.js and loaded by the dashboard at run time. React,
// @tanstack/react-query and @quad/web/sdk are the dashboard's own. Routes: plugins/store/routes/ (README "Routes").
import { useEffect, useState, type CSSProperties, type FormEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import {
  Button, Card, ConfirmDialog, DashboardLink, EmptyState, ErrorNote, Field, Loading, OverviewSection, Page, Table,
  Tabs, apiFetch, apiKey, invalidateApi, tabId, useApi, useDashboardNavigate, useOrg, type PageProps,
} from '@quad/web/sdk';

interface Product {
  id: number; name: string; price: number; stock: number; category: string; image_url: string | null; description: string;
  created_at: string; updated_at: string;
}
type Status = 'pending' | 'processing' | 'shipped' | 'delivered' | 'cancelled';
interface Order {
  id: number; user_id: number; status: Status; total: number; message: string; channel: 'storefront' | 'member';
  items: { product_id: number | null; name: string; price: number; quantity: number }[];
  member?: { email: string | null; username: string | null; chat_user_id: string | null };
  created_at: string; updated_at: string;
}
interface OrdersAnswer { orders: Order[]; page: number; per_page: number; total: number }

const STATUSES: Status[] = ['pending', 'processing', 'shipped', 'delivered', 'cancelled'];
const RANK: Record<Status, number> = { pending: 0, processing: 1, shipped: 2, delivered: 3, cancelled: 4 };
/** The moves the API allows (README "Order status"): forward along pending → delivered, or cancelled before delivered. */
const movesFrom = (from: Status): Status[] =>
  from === 'delivered' || from === 'cancelled' ? [] : STATUSES.filter((to) => to === 'cancelled' || RANK[to] > RANK[from]);
const label = (s: Status) => s[0]!.toUpperCase() + s.slice(1);
const PER_PAGE = 100;
const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
const ok: CSSProperties = { color: 'var(--ok)' };

const buyerOf = (o: Order) => o.member?.username ?? o.member?.email ?? o.member?.chat_user_id ?? `Member ${o.user_id}`;
const refresh = (prefix: string) => Promise.all([invalidateApi(`/api/storefront/${prefix}/`), invalidateApi(`/api/dashboard/${prefix}/overview`)]);

const tabOfAddress = () => (new URLSearchParams(window.location.search).get('tab') === 'orders' ? 'orders' : 'products');
const TABS = [{ id: 'products', label: 'Products' }, { id: 'orders', label: 'Orders' }];

/** The page at /dashboard/store (manifest pages.list[0].component). */
export function StorePage({ subpath }: PageProps) {
  const go = useDashboardNavigate();
  const order = /^orders\/(\d+)$/.exec(subpath ?? '');
  const [tab, setTab] = useState(tabOfAddress);
  // Back from one order (its "All orders" link opens ?tab=orders): the address says which tab.
  useEffect(() => { setTab(tabOfAddress()); }, [subpath]);
  if (order) return <OrderPage id={Number(order[1])} />;
  return (
    <Page title="Store">
      <Tabs label="Store" tabs={TABS} current={tab} onChange={(id) => { setTab(id); go(id === 'products' ? '/store' : `/store?tab=${id}`, { replace: true }); }} />
      <div role="tabpanel" aria-labelledby={tabId(tab)} className="q-tabpanel">
        {tab === 'products' ? <ProductsTab /> : <OrdersTab />}
      </div>
    </Page>
  );
}

interface Draft { name: string; price: string; stock: string; category: string; image_url: string; description: string }
const EMPTY: Draft = { name: '', price: '', stock: '1', category: '', image_url: '', description: '' };
const draftOf = (p: Product): Draft => ({
  name: p.name, price: String(p.price), stock: String(p.stock), category: p.category, image_url: p.image_url ?? '', description: p.description,
});

function ProductsTab() {
  const org = useOrg();
  const products = useApi<{ products: Product[] }>(`/api/storefront/${org.prefix}/products`);
  const [editing, setEditing] = useState<Product | null>(null);
  const [asking, setAsking] = useState<Product | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // Said here, not in the form: saving an edit swaps the form back to adding.
  const [saved, setSaved] = useState<string | null>(null);

  async function remove(p: Product) {
    setBusy(true); setError(null);
    try {
      await apiFetch(`/api/storefront/${org.prefix}/products/${p.id}`, { method: 'DELETE' });
      if (editing?.id === p.id) setEditing(null);
      await refresh(org.prefix);
    } catch (err) {
      setError(err);
    } finally {
      setAsking(null); setBusy(false);
    }
  }

  const list = products.data?.products ?? [];
  return (
    <>
      <ProductForm key={editing?.id ?? 'new'} product={editing} onDone={() => setEditing(null)} onSaved={setSaved} />
      {saved && <p role="status" style={ok}>{saved}</p>}
      <Card title="Products">
        {error !== null && <ErrorNote error={error} title="The product was not deleted" />}
        {products.isPending ? <Loading /> : products.error ? <ErrorNote error={products.error} /> : list.length === 0
          ? <EmptyState title="No products yet">Add the first one above; members see products in stock on the store page.</EmptyState>
          : (
            <Table caption="Products" rows={list} rowKey={(p) => p.id} columns={[
              { header: 'Product', cell: 'name' },
              { header: 'Category', cell: 'category' },
              { header: 'Price (points)', cell: 'price', numeric: true },
              { header: 'Stock', cell: 'stock', numeric: true },
              {
                header: <span className="q-visually-hidden">Actions</span>,
                cell: (p) => (
                  <span style={{ display: 'inline-flex', gap: 8 }}>
                    <Button onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>Edit</Button>
                    <Button variant="danger" onClick={() => setAsking(p)} aria-label={`Delete ${p.name}`}>Delete</Button>
                  </span>
                ),
              },
            ]} />
          )}
        <p className="q-hint">Members' store: <a href={`/store/${encodeURIComponent(org.prefix)}`}>/store/{org.prefix}</a></p>
      </Card>
      <ConfirmDialog open={asking !== null} title={`Delete ${asking?.name ?? 'the product'}?`} confirmLabel="Delete product" danger busy={busy}
        onConfirm={() => asking && remove(asking)} onCancel={() => setAsking(null)}>
        <p>It leaves the catalog. Orders keep its name and price.</p>
      </ConfirmDialog>
    </>
  );
}

/** Add a product (stock 1 or more), or change the one being edited. */
function ProductForm({ product, onDone, onSaved }: { product: Product | null; onDone: () => void; onSaved: (said: string | null) => void }) {
  const org = useOrg();
  const [draft, setDraft] = useState<Draft>(product ? draftOf(product) : EMPTY);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const set = (key: keyof Draft) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); onSaved(null);
    const body = {
      name: draft.name.trim(), price: Number(draft.price), stock: Number(draft.stock), category: draft.category.trim(),
      description: draft.description, image_url: draft.image_url.trim() || null,
    };
    try {
      if (product) {
        await apiFetch(`/api/storefront/${org.prefix}/products/${product.id}`, { method: 'PUT', body });
        onSaved(`Saved ${body.name}.`);
      } else {
        const { image_url, ...rest } = body;
        await apiFetch(`/api/storefront/${org.prefix}/products`, { method: 'POST', body: image_url ? body : rest });
        onSaved(`Added ${body.name}.`);
        setDraft(EMPTY);
      }
      await refresh(org.prefix);
      if (product) onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title={product ? `Edit ${product.name}` : 'Add a product'}>
      <form onSubmit={submit} aria-label={product ? 'Edit product' : 'Add a product'}>
        <div style={row}>
          <Field label="Name" value={draft.name} onChange={set('name')} maxLength={200} required />
          <Field label="Price (points)" type="number" min={0} step={1} value={draft.price} onChange={set('price')} required />
          <Field label="Stock" type="number" min={product ? 0 : 1} step={1} value={draft.stock} onChange={set('stock')} required
            hint={product ? undefined : 'A new product needs 1 or more'} />
          <Field label="Category" value={draft.category} onChange={set('category')} maxLength={100} />
        </div>
        <Field label="Image URL" type="url" value={draft.image_url} onChange={set('image_url')} placeholder="https://…" />
        <Field as="textarea" label="Description" value={draft.description} onChange={set('description')} maxLength={5000} rows={2} />
        <span style={{ display: 'inline-flex', gap: 8 }}>
          <Button type="submit" variant="primary" disabled={busy || !draft.name.trim() || draft.price === '' || draft.stock === ''}>
            {product ? 'Save' : 'Add product'}
          </Button>
          {product && <Button onClick={onDone}>Cancel</Button>}
        </span>
      </form>
      {error !== null && <ErrorNote error={error} title={product ? 'Not saved' : 'Not added'} />}
    </Card>
  );
}

function OrdersTab() {
  const org = useOrg();
  const [status, setStatus] = useState<Status | ''>('');
  const path = `/api/storefront/${org.prefix}/orders?per_page=${PER_PAGE}${status ? `&status=${status}` : ''}`;
  const orders = useInfiniteQuery({
    queryKey: [...apiKey(path), 'pages'],
    initialPageParam: 1,
    queryFn: ({ pageParam, signal }) => apiFetch<OrdersAnswer>(`${path}&page=${pageParam}`, { signal }),
    getNextPageParam: (last) => (last.page * last.per_page < last.total ? last.page + 1 : undefined),
  });
  const rows = orders.data?.pages.flatMap((p) => p.orders) ?? [];
  const total = orders.data?.pages[0]?.total ?? 0;
  return (
    <Card title="Orders">
      <Field as="select" label="Status" value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
        <option value="">All</option>
        {STATUSES.map((s) => <option key={s} value={s}>{label(s)}</option>)}
      </Field>
      {orders.isPending ? <Loading /> : orders.error ? <ErrorNote error={orders.error} /> : rows.length === 0
        ? <EmptyState title={status ? `No ${status} orders` : 'No orders yet'}>Members order on the store page.</EmptyState>
        : (
          <>
            <Table caption="Orders" rows={rows} rowKey={(o) => o.id} columns={[
              { header: 'Order', cell: (o) => <DashboardLink to={`/store/orders/${o.id}`}>Order #{o.id}</DashboardLink> },
              { header: 'Member', cell: (o) => buyerOf(o) },
              { header: 'Items', cell: (o) => o.items.map((i) => `${i.quantity} × ${i.name}`).join(', ') },
              { header: 'Total (points)', cell: 'total', numeric: true },
              { header: 'Status', cell: (o) => label(o.status) },
              { header: 'Placed', cell: (o) => new Date(o.created_at).toLocaleString() },
            ]} />
            {orders.hasNextPage && (
              <div className="q-show-more">
                <Button onClick={() => orders.fetchNextPage()} disabled={orders.isFetchingNextPage}>Show more ({total - rows.length} left)</Button>
              </div>
            )}
          </>
        )}
    </Card>
  );
}

/** One order: its items, member and total; move its status (with a message to the member) or delete it. */
function OrderPage({ id }: { id: number }) {
  const org = useOrg();
  const go = useDashboardNavigate();
  const path = `/api/storefront/${org.prefix}/orders/${id}`;
  const order = useApi<Order>(path);
  const [to, setTo] = useState<Status | ''>('');
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);

  const back = <DashboardLink to="/store?tab=orders">All orders</DashboardLink>;
  if (order.isPending) return <Page title={`Order #${id}`}><Loading /></Page>;
  if (order.error) return <Page title={`Order #${id}`}><ErrorNote error={order.error} />{back}</Page>;
  const o = order.data;
  const moves = movesFrom(o.status);
  const text = message ?? o.message;

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true); setError(null); setDone(null);
    try {
      const answer = await apiFetch<{ order: Order; refunded: number }>(path, {
        method: 'PUT', body: { ...(to && { status: to }), ...(text !== o.message && { message: text.trim() }) },
      });
      setDone(`Order #${id} is ${answer.order.status}.${answer.refunded ? ` ${answer.refunded} points went back to the member.` : ''}`);
      setTo(''); setMessage(null);
      await refresh(org.prefix);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setBusy(true); setError(null);
    try {
      await apiFetch(path, { method: 'DELETE' });
      await refresh(org.prefix);
      go('/store?tab=orders');
    } catch (err) {
      setAsking(false); setError(err); setBusy(false);
    }
  }

  return (
    <Page title={`Order #${id}`} actions={<Button variant="danger" onClick={() => setAsking(true)}>Delete order</Button>}>
      <p>{back}</p>
      <Card title="Order">
        <dl>
          <dt>Member</dt><dd>{buyerOf(o)}{o.member?.email && o.member.email !== buyerOf(o) ? ` (${o.member.email})` : ''}</dd>
          <dt>Status</dt><dd data-testid="order-status">{label(o.status)}</dd>
          <dt>Total</dt><dd>{o.total} points</dd>
          <dt>Placed</dt><dd>{new Date(o.created_at).toLocaleString()} ({o.channel === 'storefront' ? 'store page' : 'Discord session'})</dd>
          {o.message && <><dt>Message to the member</dt><dd>{o.message}</dd></>}
        </dl>
        <Table caption="Items" showCaption rows={o.items} rowKey={(i) => `${i.product_id ?? 'gone'}-${i.name}`} columns={[
          { header: 'Product', cell: 'name' },
          { header: 'Price (points)', cell: 'price', numeric: true },
          { header: 'Quantity', cell: 'quantity', numeric: true },
          { header: 'Subtotal', cell: (i) => i.price * i.quantity, numeric: true },
        ]} />
      </Card>
      <Card title="Update">
        <form onSubmit={save} aria-label="Update the order">
          <div style={row}>
            <Field as="select" label="Move to" value={to} onChange={(e) => setTo(e.target.value as Status | '')} disabled={moves.length === 0}
              hint={moves.length === 0 ? `A ${o.status} order is final` : to === 'cancelled' ? 'Cancelling gives the points back and restocks' : undefined}>
              <option value="">Keep {o.status}</option>
              {moves.map((s) => <option key={s} value={s}>{label(s)}</option>)}
            </Field>
            <Field as="textarea" label="Message to the member" value={text} onChange={(e) => setMessage(e.target.value)} maxLength={2000} rows={2}
              hint="Shown with the order in the member's orders" />
          </div>
          <Button type="submit" variant="primary" disabled={busy || (!to && text === o.message)}>Save</Button>
        </form>
        {error !== null && <ErrorNote error={error} title="The order was not changed" />}
        {done && <p role="status" style={ok}>{done}</p>}
      </Card>
      <ConfirmDialog open={asking} title={`Delete order #${id}?`} confirmLabel="Delete order" danger busy={busy} onConfirm={remove} onCancel={() => setAsking(false)}>
        <p>The order and its items are removed. The member does not get the points back and the stock is not put back (cancel it for that).</p>
      </ConfirmDialog>
    </Page>
  );
}

/** The module's card on Overview: open orders and the catalog. */
export function StoreCard() {
  return (
    <OverviewSection module="store" what="Store counts">
      {(store) => (
        <p data-testid="store-card">
          <DashboardLink to="/store?tab=orders">{Number(store.open_orders)} open order{store.open_orders === 1 ? '' : 's'}</DashboardLink>
          {' '}({Number(store.pending_orders)} pending); {Number(store.products_in_stock)} of {Number(store.products)} products in stock.
        </p>
      )}
    </OverviewSection>
  );
}
