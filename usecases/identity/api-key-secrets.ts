import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const PROJECT_KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{40}$/;
export const ADMIN_KEY_PATTERN = /^adm_[0-9A-Za-z]{40}$/;

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function newProjectKey(mode: 'live' | 'test'): string {
  return `svc_${mode}_${randomBase62(40)}`;
}

export function newAdminKey(): string {
  return `adm_${randomBase62(40)}`;
}

export { KeyHasher } from '../../libs/runtime/src/key-hasher';
