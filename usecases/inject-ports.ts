import { Inject } from '@nestjs/common';
import { PORTS } from '../libs/runtime/src/ports-token';

/**
 * How a use case asks for its ports: dependency injection by the runtime's token is the one piece of
 * Nest a use case sees (the layer rule lets this file alone import @nestjs/common). The use case
 * types the parameter down to the ports it uses (`PortsOf<…>`).
 */
export const InjectPorts = (): PropertyDecorator & ParameterDecorator => Inject(PORTS);
