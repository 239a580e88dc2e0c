/** The catalog's shapes are domain data (libs/domain/catalog); drivers produce them. */
export * from '../../domain/catalog/catalog.types';
