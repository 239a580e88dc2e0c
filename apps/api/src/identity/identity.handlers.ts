import { Inject } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { v7 as uuidv7 } from 'uuid';
import { apiKeyDecider } from '../../../../libs/domain/identity/api-key.decider';
import { apiKeyStream, projectStream } from '../../../../libs/domain/identity/events';
import { projectDecider } from '../../../../libs/domain/identity/project.decider';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { notFound } from '../../../../libs/http/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { apiKeysProjection, type ApiKeyDoc } from '../../../../projections/api-keys/api-keys.projection';
import { projectsProjection, type ProjectDoc } from '../../../../projections/projects/projects.projection';
import { IDENTITY, PLATFORM } from '../tokens';
import type { KeyHasher } from './api-key-secrets';
import { issueApiKey, type IssuedKey, type KeyInput } from './issue-api-key';

export class IssueApiKey extends Command<IssuedKey> {
  constructor(
    readonly input: KeyInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class RevokeApiKey extends Command<void> {
  constructor(
    readonly projectId: string,
    readonly keyId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** Operator extension: a project and its first (owner, test-mode) key. */
export class CreateProject extends Command<{ project: ProjectDoc; key: IssuedKey }> {
  constructor(
    readonly name: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class ListApiKeys extends Query<{ items: ApiKeyDoc[]; total: number }> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ revoked?: 'true' | 'false' }>,
  ) {
    super();
  }
}

export class ListProjects extends Query<{ items: ProjectDoc[]; total: number }> {
  constructor(readonly list: ListQuery) {
    super();
  }
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey> {
  constructor(
    @Inject(PLATFORM) private readonly platform: Platform,
    @Inject(IDENTITY) private readonly identity: { hasher: KeyHasher },
  ) {}

  execute({ input, context }: IssueApiKey): Promise<IssuedKey> {
    return issueApiKey(this.platform, this.identity.hasher, input, context);
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ projectId, keyId, context }: RevokeApiKey): Promise<void> {
    const doc = await (await this.platform.projections.collection(apiKeysProjection)).get(keyId);
    if (!doc || doc.projectId !== projectId || doc.scope !== 'project') throw notFound('API key not found');
    const result = await handleCommand(this.platform.events, apiKeyStream(keyId), apiKeyDecider, { type: 'RevokeApiKey', keyId, projectId, now: this.platform.now() }, context);
    await this.platform.waitForProjections(result.position, [apiKeysProjection.name]);
  }
}

@CommandHandler(CreateProject)
export class CreateProjectHandler implements ICommandHandler<CreateProject> {
  constructor(
    @Inject(PLATFORM) private readonly platform: Platform,
    @Inject(IDENTITY) private readonly identity: { hasher: KeyHasher },
  ) {}

  async execute({ name, context }: CreateProject): Promise<{ project: ProjectDoc; key: IssuedKey }> {
    const projectId = uuidv7();
    const created = await handleCommand(this.platform.events, projectStream(projectId), projectDecider, { type: 'CreateProject', projectId, name, now: this.platform.now() }, context, { newStream: true });
    const key = await issueApiKey(this.platform, this.identity.hasher, { projectId, name: 'default', role: 'owner', expiresAt: null, mode: 'test' }, context);
    await this.platform.waitForProjections(created.position, [projectsProjection.name]);
    return { project: (await this.platform.readBack(projectsProjection, projectStream(projectId), projectId, created.position))!, key };
  }
}

@QueryHandler(ListApiKeys)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeys> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ projectId, list }: ListApiKeys) {
    const filter: Record<string, string | boolean> = { projectId, scope: 'project' };
    if (list.filters.revoked) filter.revoked = list.filters.revoked === 'true';
    return (await this.platform.projections.collection(apiKeysProjection)).find({ filter, sort: list.sort, skip: list.skip, limit: list.limit });
  }
}

@QueryHandler(ListProjects)
export class ListProjectsHandler implements IQueryHandler<ListProjects> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ list }: ListProjects) {
    return (await this.platform.projections.collection(projectsProjection)).find({ sort: list.sort, skip: list.skip, limit: list.limit });
  }
}

export const IDENTITY_HANDLERS = [IssueApiKeyHandler, RevokeApiKeyHandler, CreateProjectHandler, ListApiKeysHandler, ListProjectsHandler];
