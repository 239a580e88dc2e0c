import { DomainError, type Decider } from '../shared/domain-error';
import { publicModel } from './catalog';
import { SIMULATOR_CONNECTION, type CustomModelChanged, type CustomModelCreated, type CustomModelDeleted, type CustomModelFields, type OrgModelKind, type WaterfallSet, type WaterfallTarget } from './events';

/** An alias a client names in `model`: no slash or colon (it is a path segment of /api/models/{id}). */
export const MODEL_ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** A waterfall is short: each step may hold a call up to the upstream timeout before the next is tried. */
export const MAX_WATERFALL = 8;

function checkFields(f: Partial<CustomModelFields>): void {
  if (f.upstreamModel !== undefined && (f.upstreamModel.length === 0 || f.upstreamModel.length > 200)) throw new DomainError('BAD_REQUEST', 'upstreamModel: 1 to 200 characters');
  if (f.maxOutputTokens !== undefined && (!Number.isSafeInteger(f.maxOutputTokens) || f.maxOutputTokens < 1 || f.maxOutputTokens > 1_000_000)) throw new DomainError('BAD_REQUEST', 'maxOutputTokens: a whole number from 1 to 1000000');
  const bad = (v: number) => !Number.isFinite(v) || v < 0 || v > 1_000_000;
  if (f.price && (bad(f.price.inputPerMTok) || bad(f.price.outputPerMTok))) throw new DomainError('BAD_REQUEST', 'price: USD per million tokens, from 0 to 1000000');
}

export type CustomModelState = { status: 'none' | 'deleted' } | { status: 'active'; projectId: string; kind: OrgModelKind };

const LOCAL_ON_SIMULATOR = 'connectionId: a local model is served by a connection of the organization, not the simulator';
export type CreateCustomModel = { type: 'CreateCustomModel'; projectId: string; alias: string; fields: CustomModelFields; now: string };
export type ChangeCustomModel = { type: 'ChangeCustomModel'; projectId: string; alias: string; changes: Partial<CustomModelFields>; now: string };
export type DeleteCustomModel = { type: 'DeleteCustomModel'; projectId: string; alias: string; now: string };
export type CustomModelCommand = CreateCustomModel | ChangeCustomModel | DeleteCustomModel;
export type CustomModelEvent = CustomModelCreated | CustomModelChanged | CustomModelDeleted;

/** An organization's custom model: an alias of an upstream model on one of its connections, at its own price. */
export const customModelDecider: Decider<CustomModelCommand, CustomModelEvent, CustomModelState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'gateway.CustomModelCreated.v1':
        return { status: 'active', projectId: event.data.projectId, kind: event.data.kind ?? 'custom' };
      case 'gateway.CustomModelChanged.v1':
        return state;
      case 'gateway.CustomModelDeleted.v1':
        return { status: 'deleted' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateCustomModel': {
        if (!MODEL_ALIAS.test(command.alias)) throw new DomainError('BAD_REQUEST', 'id: letters, digits, dot, dash and underscore, up to 100 characters');
        if (publicModel(command.alias)) throw new DomainError('CONFLICT', `${command.alias} is a public model`);
        if (state.status === 'active') throw new DomainError('CONFLICT', `The model ${command.alias} already exists`);
        checkFields(command.fields);
        if (command.fields.kind === 'local' && command.fields.connectionId === SIMULATOR_CONNECTION) throw new DomainError('BAD_REQUEST', LOCAL_ON_SIMULATOR);
        return [{ type: 'gateway.CustomModelCreated.v1', data: { projectId: command.projectId, alias: command.alias, ...command.fields, createdAt: command.now } }];
      }
      case 'ChangeCustomModel':
        if (state.status !== 'active' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Model not found');
        checkFields(command.changes);
        if ('kind' in command.changes) throw new DomainError('BAD_REQUEST', 'kind: a model stays what it was created as');
        if (state.kind === 'local' && command.changes.connectionId === SIMULATOR_CONNECTION) throw new DomainError('BAD_REQUEST', LOCAL_ON_SIMULATOR);
        return Object.keys(command.changes).length === 0 ? [] : [{ type: 'gateway.CustomModelChanged.v1', data: { projectId: command.projectId, alias: command.alias, changes: command.changes, changedAt: command.now } }];
      case 'DeleteCustomModel':
        if (state.status !== 'active' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Model not found');
        return [{ type: 'gateway.CustomModelDeleted.v1', data: { projectId: command.projectId, alias: command.alias, deletedAt: command.now } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

export type SetWaterfall = { type: 'SetWaterfall'; projectId: string; model: string; targets: WaterfallTarget[]; now: string };

/** A model's waterfall: the ordered targets tried while an attempt fails before its first content byte (DECISIONS 19). */
export const waterfallDecider: Decider<SetWaterfall, WaterfallSet, { targets: WaterfallTarget[] | null }> = {
  initialState: () => ({ targets: null }),
  evolve: (_state, event) => ({ targets: event.data.targets }),
  decide: (command) => {
    if (command.targets.length === 0 || command.targets.length > MAX_WATERFALL) throw new DomainError('BAD_REQUEST', `targets: 1 to ${MAX_WATERFALL} steps`);
    for (const t of command.targets) if (!t.model || t.model.length > 200) throw new DomainError('BAD_REQUEST', 'targets.model: 1 to 200 characters');
    return [{ type: 'gateway.WaterfallSet.v1', data: { projectId: command.projectId, model: command.model, targets: command.targets, setAt: command.now } }];
  },
};
