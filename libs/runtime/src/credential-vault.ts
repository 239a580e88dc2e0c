import * as path from 'node:path';
import type { AppConfig } from '../../config/src/config';
import type { EventStore } from '../../eventstore/src/event-store.port';
import { SqlEventStore } from '../../eventstore/src/sql/sql-event-store';
import { CredentialCipher } from '../../providers/src/credential-cipher';
import { FileCredentialVault, SqlCredentialVault, type CredentialVault } from '../../providers/src/credential-vault';

/**
 * The vault of the running profile: a table in the event store's database for PostgreSQL/PGlite,
 * 0600 files in the data dir for EventStoreDB. The key (base64 or hex, 32 bytes) comes from
 * CREDENTIALS_KEY, else from the one generated into `<dataDir>/secrets-credentials.key`.
 */
export function openCredentialVault(config: AppConfig, events: EventStore, key: string | undefined = config.credentialsKey): CredentialVault {
  const cipher = CredentialCipher.fromConfig(config.dataDir, key);
  if (events instanceof SqlEventStore) return new SqlCredentialVault(events.sqlClient, cipher, events.schemaName);
  return new FileCredentialVault(path.join(config.dataDir, 'credentials'), cipher);
}
