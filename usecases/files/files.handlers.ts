import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { fileStream } from '../../libs/domain/files/events';
import { MAX_FILE_CONTENT_BYTES, storedContent } from '../../libs/domain/files/file-content';
import { fileDecider, fileIdFor } from '../../libs/domain/files/file.decider';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { AppError, notFound } from '../../libs/application/src/errors';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { listResult, type ListResult } from '../../libs/application/src/views';
import type { Resource } from '../../libs/application/src/views';
import { fileVersionDocId, fileVersionsProjection, type FileVersionDoc } from '../../projections/file-versions/file-versions.projection';
import { filesProjection, type FileDoc } from '../../projections/files/files.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** A file version's content (a 413 names its `/content`). */
export interface ContentInput {
  content: unknown;
}

export class CreateFile extends Command<FileDoc> {
  constructor(
    readonly projectId: string,
    readonly input: { path: string; name: string; mimeType: string; content?: ContentInput },
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class PutFileContent extends Command<FileDoc> {
  constructor(
    readonly projectId: string,
    readonly fileId: string,
    readonly content: ContentInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class DeleteFile extends Command<void> {
  constructor(
    readonly projectId: string,
    readonly fileId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class GetFile extends Query<FileDoc> {
  constructor(
    readonly projectId: string,
    readonly fileId: string,
  ) {
    super();
  }
}

export class ListFiles extends Query<ListResult<object>> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<unknown>,
    readonly toItem: (doc: FileDoc) => object,
  ) {
    super();
  }
}

export class ListFileVersions extends Query<ListResult<object>> {
  constructor(
    readonly projectId: string,
    readonly fileId: string,
    readonly list: ListQuery<unknown>,
    readonly toItem: (doc: FileVersionDoc) => object,
  ) {
    super();
  }
}

export class GetFileVersion extends Query<FileVersionDoc> {
  constructor(
    readonly projectId: string,
    readonly fileId: string,
    readonly version: number,
  ) {
    super();
  }
}

/** DECISIONS 1 and 13: content over 512 KiB is 413 PAYLOAD_TOO_LARGE (the domain refuses it too). */
function checkSize({ content }: ContentInput): void {
  const { size } = storedContent(content);
  if (size > MAX_FILE_CONTENT_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `content is ${size} bytes stored; a file version holds at most ${MAX_FILE_CONTENT_BYTES} (512 KiB)`, { source: { pointer: '/content' } });
}

/** The project's live file, else 404 (missing, another project's, or deleted: DECISIONS 13). */
async function liveFile(ports: PortsOf<'projections'>, projectId: string, fileId: string): Promise<FileDoc> {
  const doc = await (await ports.projections.collection(filesProjection)).get(fileId);
  if (!doc || doc.projectId !== projectId || doc.deletedAt !== null) throw notFound('File not found');
  return doc;
}

async function written(ports: PortsOf<'readBack' | 'waitForProjections'>, fileId: string, position: number | null): Promise<FileDoc> {
  await ports.waitForProjections(position, [filesProjection.name, fileVersionsProjection.name]);
  return (await ports.readBack(filesProjection, fileStream(fileId), fileId, position))!;
}

@CommandHandler(CreateFile)
export class CreateFileHandler implements ICommandHandler<CreateFile> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, input, context }: CreateFile): Promise<FileDoc> {
    if (input.content) checkSize(input.content);
    const files = await this.ports.projections.collection(filesProjection);
    const same = { projectId, path: input.path, name: input.name };
    // A re-run after a crash (DECISIONS 5) finds the file its first run created: from the first generation on, the live one.
    const recovering = context.metadata.recovering === true;
    if (!recovering && (await files.findOne({ ...same, deletedAt: null }))) throw new AppError('CONFLICT', `A file named "${input.name}" already exists at "${input.path}"`);
    // The next generation of this path and name; one the model has not seen yet (a delete elsewhere) is skipped.
    let generation = recovering ? 0 : (await files.find({ filter: same, limit: 1 })).total;
    for (;;) {
      const fileId = fileIdFor(projectId, input.path, input.name, generation);
      const stream = fileStream(fileId);
      const { state: previous } = await aggregateStream(this.ports.events, stream, fileDecider);
      if (previous.status === 'deleted') {
        generation += 1;
        continue;
      }
      const command = { type: 'CreateFile' as const, fileId, projectId, path: input.path, name: input.name, mimeType: input.mimeType, content: input.content?.content, now: this.ports.now() };
      const { position } = await handleCommand(this.ports.events, stream, fileDecider, command, context);
      return written(this.ports, fileId, position);
    }
  }
}

@CommandHandler(PutFileContent)
export class PutFileContentHandler implements ICommandHandler<PutFileContent> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, fileId, content, context }: PutFileContent): Promise<FileDoc> {
    const doc = await liveFile(this.ports, projectId, fileId);
    checkSize(content);
    const command = { type: 'AddFileVersion' as const, fileId, projectId, content: content.content, now: this.ports.now() };
    // A live file's stream is its creation and one event per version, so the model's current version
    // is the stream's revision: the append checks that instead of reading every version's content back.
    const known = { state: { status: 'live' as const, fileId, projectId, path: doc.path, name: doc.name, versions: doc.currentVersion }, revision: doc.currentVersion };
    const { position } = await handleCommand(this.ports.events, fileStream(fileId), fileDecider, command, context, { known });
    return written(this.ports, fileId, position);
  }
}

@CommandHandler(DeleteFile)
export class DeleteFileHandler implements ICommandHandler<DeleteFile> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, fileId, context }: DeleteFile): Promise<void> {
    await liveFile(this.ports, projectId, fileId);
    const command = { type: 'DeleteFile' as const, fileId, projectId, now: this.ports.now() };
    const { position } = await handleCommand(this.ports.events, fileStream(fileId), fileDecider, command, context);
    await this.ports.waitForProjections(position, [filesProjection.name]);
  }
}

@QueryHandler(GetFile)
export class GetFileHandler implements IQueryHandler<GetFile> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, fileId }: GetFile): Promise<FileDoc> {
    return liveFile(this.ports, projectId, fileId);
  }
}

// File records are flat (spec 2.7): the list envelope carries them as they are.
const flat = (items: object[]) => items as Resource[];

@QueryHandler(ListFiles)
export class ListFilesHandler implements IQueryHandler<ListFiles> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list, toItem }: ListFiles): Promise<ListResult<object>> {
    const files = await this.ports.projections.collection(filesProjection);
    const { items, total } = await files.find({ filter: { projectId, deletedAt: null }, ...pageOf(list) });
    return listResult(flat(items.map(toItem)), total);
  }
}

@QueryHandler(ListFileVersions)
export class ListFileVersionsHandler implements IQueryHandler<ListFileVersions> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, fileId, list, toItem }: ListFileVersions): Promise<ListResult<object>> {
    await liveFile(this.ports, projectId, fileId);
    const versions = await this.ports.projections.collection(fileVersionsProjection);
    const { items, total } = await versions.find({ filter: { fileId }, ...pageOf(list) });
    return listResult(flat(items.map(toItem)), total);
  }
}

@QueryHandler(GetFileVersion)
export class GetFileVersionHandler implements IQueryHandler<GetFileVersion> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, fileId, version }: GetFileVersion): Promise<FileVersionDoc> {
    await liveFile(this.ports, projectId, fileId);
    const doc = await (await this.ports.projections.collection(fileVersionsProjection)).get(fileVersionDocId(fileId, version));
    if (!doc) throw notFound('File version not found');
    return doc;
  }
}

export const FILE_HANDLERS = [CreateFileHandler, PutFileContentHandler, DeleteFileHandler, GetFileHandler, ListFilesHandler, ListFileVersionsHandler, GetFileVersionHandler];
