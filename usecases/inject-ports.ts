import { Inject } from '@nestjs/common';
import { IDENTITY, OPERATOR, PERMISSIONS, PORTS } from '../libs/runtime/src/ports-token';
import type { CataloguedPermission } from '../libs/application/src/permissions';
import type { KeyHasher } from '../libs/runtime/src/key-hasher';

/**
 * How a use case asks for what it uses: dependency injection by the runtime's tokens is the one piece
 * of Nest a use case sees (the layer rule lets this file alone import @nestjs/common). A use case
 * types its ports down to the members it uses (`PortsOf<…>`).
 */
export const InjectPorts = (): PropertyDecorator & ParameterDecorator => Inject(PORTS);
/** The API key hasher of the identity context. */
export const InjectIdentity = (): PropertyDecorator & ParameterDecorator => Inject(IDENTITY);
export interface IdentityPort { hasher: KeyHasher }
/** The permissions the transport's routes declare (custom roles and grants are checked against them). */
export const InjectPermissions = (): PropertyDecorator & ParameterDecorator => Inject(PERMISSIONS);
export type PermissionsPort = () => CataloguedPermission[];
/** The operator's port over the runtime's subscriptions (usecases/admin/projections.ts declares it). */
export const InjectOperator = (): PropertyDecorator & ParameterDecorator => Inject(OPERATOR);
