import * as path from 'node:path';
import { SqlEventStore } from '../../../../libs/eventstore/src/sql/sql-event-store';
import { CredentialCipher } from '../../../../libs/providers/src/credential-cipher';
import { FileCredentialVault, SqlCredentialVault, type CredentialVault } from '../../../../libs/providers/src/credential-vault';
import type { Platform } from '../../../../libs/runtime/src/platform';

/**
 * The vault of the running profile: a table in the event store's database for PostgreSQL/PGlite,
 * 0600 files in the data dir for EventStoreDB. The key (base64 or hex, 32 bytes) comes from
 * CREDENTIALS_KEY, else from the one generated into `<dataDir>/secrets-credentials.key`.
 */
export function createCredentialVault(platform: Platform, key: string | undefined = platform.config.credentialsKey): CredentialVault {
  const cipher = CredentialCipher.fromConfig(platform.config.dataDir, key);
  const events = platform.events;
  if (events instanceof SqlEventStore) {
    return new SqlCredentialVault(events.sqlClient, cipher, events.schemaName);
  }
  return new FileCredentialVault(path.join(platform.config.dataDir, 'credentials'), cipher);
}
