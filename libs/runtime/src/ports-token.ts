/** The DI token of the runtime's ports (./ports.ts), provided once by each app's root module. */
export const PORTS = Symbol('PORTS');
/** The identity context's API key hasher (`{ hasher: KeyHasher }`, ./key-hasher.ts), provided by the API. */
export const IDENTITY = Symbol('IDENTITY');
/** The permission catalogue the routes declare (`() => CataloguedPermission[]`), provided by the API that registered them. */
export const PERMISSIONS = Symbol('PERMISSIONS');
/** The operator's port over this process's subscription runners (./operator.ts), provided by the API. */
export const OPERATOR = Symbol('OPERATOR');
