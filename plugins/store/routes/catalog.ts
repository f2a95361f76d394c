// The catalog: read by everyone, kept by the org's officers.
import { ErrorBody, OrgParams, Type, badRequest, notFound, type RoutesPlugin } from '@quad/core';
import { Product } from '../entities.js';
import { ById, StoreOut, storePage } from '../route-kit.js';
import { ProductOut, productView } from '../views.js';

const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const ImageUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 });
const ProductFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  price: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'points' }),
  category: Type.String({ maxLength: 100 }),
  image_url: Type.Union([ImageUrl, Type.Null()]),
  description: Type.String({ maxLength: 5000 }),
};

const CatalogQuery = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 100 })),
  in_stock: Type.Boolean({ default: false, description: 'only products with stock left' }),
});

export default (async (app) => {
  app.get('/api/storefront/:org/products', {
    config: { auth: 'public' },
    schema: { tags: ['store'], summary: 'The catalog', params: OrgParams, querystring: CatalogQuery, response: { 200: Type.Object({ products: Type.Array(ProductOut) }), 400: ErrorBody, 404: ErrorBody } },
  }, async (request) => {
    const { category, in_stock } = request.query;
    const products = await request.em.find(Product, { ...(category !== undefined && { category }), ...(in_stock && { stock: { $gt: 0 } }) }, { orderBy: { category: 'asc', name: 'asc', id: 'asc' } });
    return { products: products.map(productView) };
  });

  app.get('/api/storefront/:org/products/:id', {
    config: { auth: 'public' },
    schema: { tags: ['store'], summary: 'One product', params: ById, response: { 200: ProductOut, 400: ErrorBody, 404: ErrorBody } },
  }, async (request) => {
    const product = await request.em.findOne(Product, { id: request.params.id });
    if (!product) throw notFound(`No product ${request.params.id}`, 'product_not_found');
    return productView(product);
  });

  app.get('/api/storefront/:org/store', {
    config: { auth: 'public' },
    schema: { tags: ['store'], summary: 'The store page: products in stock and their categories', params: OrgParams, response: { 200: StoreOut, 404: ErrorBody } },
  }, async (request) => storePage(request));

  app.post('/api/storefront/:org/products', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Add a product (stock 1 or more)', params: OrgParams,
      body: Type.Object({
        name: ProductFields.name, price: ProductFields.price,
        stock: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'a new product needs stock of 1 or more' }),
        category: Type.Optional(ProductFields.category), image_url: Type.Optional(ProductFields.image_url), description: Type.Optional(ProductFields.description),
      }, { additionalProperties: false }),
      response: { 201: ProductOut, ...Errors },
    },
  }, async (request, reply) => {
    const b = request.body;
    const name = b.name.trim();
    if (!name) throw badRequest('body.name: must not be blank', 'blank_name');
    const product = await request.em.transactional(async (em) => {
      const row = em.create(Product, {
        organization: request.org!.id, name, price: b.price, stock: b.stock, category: b.category?.trim() ?? '',
        imageUrl: b.image_url ?? null, description: b.description ?? '',
      });
      await em.flush();
      await request.audit(em, 'store.product_create', { product_id: row.id, name, price: b.price, stock: b.stock });
      return row;
    });
    return reply.code(201).send(productView(product));
  });

  app.put('/api/storefront/:org/products/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Change a product (fields left out stay; image_url null removes it)', params: ById,
      body: Type.Object({
        name: Type.Optional(ProductFields.name), price: Type.Optional(ProductFields.price),
        stock: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
        category: Type.Optional(ProductFields.category), image_url: Type.Optional(ProductFields.image_url), description: Type.Optional(ProductFields.description),
      }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: ProductOut, ...Errors },
    },
  }, async (request) => {
    const b = request.body;
    if (b.name !== undefined && !b.name.trim()) throw badRequest('body.name: must not be blank', 'blank_name');
    return request.em.transactional(async (em) => {
      const product = await em.findOne(Product, { id: request.params.id });
      if (!product) throw notFound(`No product ${request.params.id}`, 'product_not_found');
      if (b.name !== undefined) product.name = b.name.trim();
      if (b.price !== undefined) product.price = b.price;
      if (b.stock !== undefined) product.stock = b.stock;
      if (b.category !== undefined) product.category = b.category.trim();
      if (b.image_url !== undefined) product.imageUrl = b.image_url;
      if (b.description !== undefined) product.description = b.description;
      await em.flush();
      await request.audit(em, 'store.product_update', { product_id: product.id, fields: Object.keys(b) });
      return productView(product);
    });
  });

  app.delete('/api/storefront/:org/products/:id', {
    config: { auth: 'officer' },
    schema: {
      tags: ['store'], summary: 'Delete a product (orders keep its name and price)', params: ById,
      response: { 200: Type.Object({ deleted: Type.Integer() }), ...Errors },
    },
  }, async (request) => {
    await request.em.transactional(async (em) => {
      const n = await em.nativeDelete(Product, { id: request.params.id });
      if (!n) throw notFound(`No product ${request.params.id}`, 'product_not_found');
      await request.audit(em, 'store.product_delete', { product_id: request.params.id });
    });
    return { deleted: request.params.id };
  });
}) satisfies RoutesPlugin;
