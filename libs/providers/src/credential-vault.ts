import * as fs from 'node:fs';
import * as path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { SqlClient } from '../../eventstore/src/sql/sql-client';
import type { CredentialCipher } from './credential-cipher';

/** Provider credentials as a client sent them (e.g. `{ apiKey }`). */
export type Credentials = Record<string, string>;

/**
 * Encrypted store for provider credentials (DECISIONS 11). Events and read models carry only the
 * reference `put` returns; plaintext exists only in memory between request and driver.
 */
export interface CredentialVault {
  put(projectId: string, credentials: Credentials): Promise<string>;
  get(ref: string): Promise<Credentials | null>;
  /** Forgets a secret (crypto-shredding); unknown references are ignored. */
  delete(ref: string): Promise<void>;
}

const newRef = () => `cred_${uuidv7()}`;
const REF = /^cred_[0-9a-f-]{36}$/;

/** Ciphertexts in a table beside the events, in the event store's own database and schema. */
export class SqlCredentialVault implements CredentialVault {
  private ready: Promise<void> | null = null;
  private readonly table: string;

  constructor(
    private readonly sql: SqlClient,
    private readonly cipher: CredentialCipher,
    private readonly schema = 'eventstore',
  ) {
    if (!/^[a-z_][a-z0-9_]{0,50}$/.test(schema)) throw new Error(`Invalid schema name: ${schema}`);
    this.table = `"${schema}".provider_credentials`;
  }

  private migrate(): Promise<void> {
    this.ready ??= (async () => {
      await this.sql.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      await this.sql.query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (ref text PRIMARY KEY, project_id text NOT NULL, ciphertext text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
      );
    })().catch((err) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  async put(projectId: string, credentials: Credentials): Promise<string> {
    await this.migrate();
    const ref = newRef();
    await this.sql.query(`INSERT INTO ${this.table} (ref, project_id, ciphertext) VALUES ($1, $2, $3)`, [ref, projectId, this.cipher.encrypt(JSON.stringify(credentials), ref)]);
    return ref;
  }

  async get(ref: string): Promise<Credentials | null> {
    await this.migrate();
    const rows = await this.sql.query<{ ciphertext: string }>(`SELECT ciphertext FROM ${this.table} WHERE ref = $1`, [ref]);
    return rows[0] ? (JSON.parse(this.cipher.decrypt(rows[0].ciphertext, ref)) as Credentials) : null;
  }

  async delete(ref: string): Promise<void> {
    await this.migrate();
    await this.sql.query(`DELETE FROM ${this.table} WHERE ref = $1`, [ref]);
  }
}

/** One 0600 file per secret under `<dir>` (the EventStoreDB profile has no SQL database). */
export class FileCredentialVault implements CredentialVault {
  constructor(
    private readonly dir: string,
    private readonly cipher: CredentialCipher,
  ) {}

  private file(ref: string): string {
    if (!REF.test(ref)) throw new Error('Invalid credential reference');
    return path.join(this.dir, `${ref}.enc`);
  }

  async put(projectId: string, credentials: Credentials): Promise<string> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const ref = newRef();
    const body = JSON.stringify({ projectId, ciphertext: this.cipher.encrypt(JSON.stringify(credentials), ref) });
    const tmp = `${this.file(ref)}.tmp`;
    await fs.promises.writeFile(tmp, body, { mode: 0o600, flag: 'wx' });
    await fs.promises.rename(tmp, this.file(ref));
    return ref;
  }

  async get(ref: string): Promise<Credentials | null> {
    let body: string;
    try {
      body = await fs.promises.readFile(this.file(ref), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const { ciphertext } = JSON.parse(body) as { ciphertext: string };
    return JSON.parse(this.cipher.decrypt(ciphertext, ref)) as Credentials;
  }

  async delete(ref: string): Promise<void> {
    await fs.promises.rm(this.file(ref), { force: true });
  }
}
