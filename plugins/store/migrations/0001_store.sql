-- The store: products priced in points, orders and their items (spec "Store records"). Order items keep the
-- product's name and price at checkout, so an order reads the same after its product changes or is deleted.
create table products (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  price integer not null check (price >= 0),
  stock integer not null check (stock >= 0),
  category text not null default '' check (length(category) <= 100),
  image_url text check (image_url is null or length(image_url) <= 2000),
  description text not null default '' check (length(description) <= 5000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index products_org on products (organization_id, category, name);

create table orders (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  total integer not null check (total >= 0),
  status text not null default 'pending' check (status in ('pending', 'processing', 'shipped', 'delivered', 'cancelled')),
  -- the officer's message to the member (set with a status change)
  message text not null default '' check (length(message) <= 2000),
  -- storefront (identity-provider token) or member (Discord session)
  channel text not null check (channel in ('storefront', 'member')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index orders_org on orders (organization_id, created_at desc);
create index orders_member on orders (organization_id, user_id, created_at desc);
create index orders_open on orders (organization_id) where status in ('pending', 'processing', 'shipped');

create table order_items (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  order_id integer not null references orders (id) on delete cascade,
  product_id integer references products (id) on delete set null,
  name text not null,
  price integer not null check (price >= 0),
  quantity integer not null check (quantity between 1 and 1000)
);
create index order_items_order on order_items (order_id);
create index order_items_product on order_items (product_id);
