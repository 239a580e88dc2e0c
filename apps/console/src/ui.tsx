import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, fieldOf, type ApiErrorObject, type Resource } from './api';

/** The errors of a failed call: those naming a field go next to it, the others above the form. */
export function fieldErrors(err: unknown, field: string, aliases: Record<string, string> = {}): ApiErrorObject[] {
  if (!(err instanceof ApiError)) return [];
  return err.errors.filter((e) => (fieldOf(e) ?? aliases[e.code ?? '']) === field);
}

export function FormErrors({ error, fields = [], aliases = {} }: { error: unknown; fields?: string[]; aliases?: Record<string, string> }) {
  if (!error) return null;
  const errors = error instanceof ApiError ? error.errors.filter((e) => !fields.includes(fieldOf(e) ?? aliases[e.code ?? ''] ?? '')) : [{ detail: String(error instanceof Error ? error.message : error) }];
  if (!errors.length) return null;
  return (
    <div class="error" role="alert">
      {errors.map((e, i) => (
        <p key={i}>{e.detail ?? e.code}</p>
      ))}
    </div>
  );
}

interface FieldProps {
  id: string;
  label: string;
  error?: unknown;
  aliases?: Record<string, string>;
  /** The API's name for the field, when it differs from the id. */
  name?: string;
  hint?: string;
  children: (aria: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => ComponentChildren;
}

/** A labelled control with the API's errors for it right below, tied to it by aria-describedby. */
export function Field({ id, label, error, aliases, name, hint, children }: FieldProps) {
  const errors = fieldErrors(error, name ?? id, aliases);
  const described = [hint ? `${id}-hint` : '', errors.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, 'aria-invalid': errors.length > 0, 'aria-describedby': described || undefined })}
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {errors.length > 0 && (
        <p class="field-error" id={`${id}-error`} data-field={name ?? id}>
          {errors.map((e) => e.detail).join('; ')}
        </p>
      )}
    </div>
  );
}

/** Loads once (and again on `reload()` or when deps change); keeps the last data while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export const cents = (n: number | undefined, currency = 'USD') =>
  n === undefined ? '—' : new Intl.NumberFormat('en', { style: 'currency', currency }).format(n / 100);

/** An instant in UTC, the same on every page whatever the browser's locale: `2026-11-27 09:41:05 UTC` (`chars` 23: with milliseconds). */
const utc = (iso: unknown, chars: number) => (typeof iso === 'string' && !Number.isNaN(Date.parse(iso)) ? `${new Date(iso).toISOString().slice(0, chars).replace('T', ' ')} UTC` : '—');
export const when = (iso: unknown) => utc(iso, 19);

export function Status({ value }: { value: string }) {
  return <span class={`status status-${value}`}>{value}</span>;
}

export function Button(props: JSX.HTMLAttributes<HTMLButtonElement> & { kind?: 'primary' | 'danger' }) {
  const { kind, class: cls, ...rest } = props;
  return <button type="button" class={[kind ?? '', cls ?? ''].join(' ').trim() || undefined} {...rest} />;
}

/** A secret the API shows once (a new key): shown with a copy button until the person hides it. */
export function ShownOnce({ id, value, copyLabel, doneLabel = 'Done, hide the key', children, onDone }: { id: string; value: string; copyLabel: string; doneLabel?: string; children: ComponentChildren; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      // No clipboard permission: select the secret so the person can copy it themselves.
      const el = document.getElementById(id);
      if (el) getSelection()?.selectAllChildren(el);
    }
  };
  return (
    <div class="notice" role="status">
      <p>{children}</p>
      <p class="secret">
        <code id={id}>{value}</code>{' '}
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : copyLabel}
        </button>
      </p>
      <button type="button" onClick={onDone}>
        {doneLabel}
      </button>
    </div>
  );
}

/** Revoke with a confirmation step: "Revoke <name>", then "Confirm revoke <name>" or "Cancel". */
export function RevokeButton({ name, revoked, onConfirm }: { name: string; revoked: boolean; onConfirm: () => Promise<boolean> }) {
  const [confirming, setConfirming] = useState(false);
  if (revoked) return <span class="muted">Revoked</span>;
  if (!confirming)
    return (
      <button type="button" onClick={() => setConfirming(true)} aria-label={`Revoke ${name}`}>
        Revoke
      </button>
    );
  return (
    <>
      <button type="button" class="danger" onClick={async () => (await onConfirm()) && setConfirming(false)}>
        Confirm revoke {name}
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </>
  );
}

/** An ISO instant with its milliseconds, in UTC (`2026-11-27 09:41:05.123 UTC`): events a few ms apart stay in order. */
export const whenMs = (iso: unknown) => utc(iso, 23);

/** A table's header row: one column header per name. */
export function THead({ cols }: { cols: string[] }) {
  return (
    <thead>
      <tr>
        {cols.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A labelled picker: options as `[value, label]` pairs (or plain values that are their own label). */
export function SelectField({ id, label, value, options, onChange }: { id: string; label: string; value: string; options: Array<string | [string, string]>; onChange: (v: string) => void }) {
  return (
    <Field id={id} label={label}>
      {(aria) => (
        <select {...aria} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          {options.map((o) => {
            const [v, l] = typeof o === 'string' ? [o, o] : o;
            return (
              <option key={v} value={v}>
                {l}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}

/**
 * Runs a call that can fail (a create, an action, a revoke): its error kept for the page to show and
 * cleared on the next run; resolves true when the call succeeded.
 */
export function useAction(): [unknown, (call: () => Promise<unknown>) => Promise<boolean>] {
  const [error, setError] = useState<unknown>();
  const run = useCallback(async (call: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await call();
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  }, []);
  return [error, run];
}

interface KeyAttributes {
  name: string;
  prefix: string;
  revoked: boolean;
  createdAt: string;
}

/** A table of keys (the project's API keys, the gateway's organization keys): name, prefix, the kind's own columns, created, revoke. */
export function KeyTable<A extends KeyAttributes>({ kind, rows, columns, onRevoke }: { kind: string; rows: Resource<A>[]; columns: Array<[string, (a: A) => ComponentChildren]>; onRevoke: (id: string) => Promise<boolean> }) {
  return (
    <table class={kind}>
      <THead cols={['Name', 'Prefix', ...columns.map(([c]) => c), 'Created', 'Actions']} />
      <tbody>
        {rows.map((k) => (
          <tr key={k.id} data-id={k.id}>
            <td>{k.attributes.name}</td>
            <td>
              <code>{k.attributes.prefix}…</code>
            </td>
            {columns.map(([c, cell]) => (
              <td key={c}>{cell(k.attributes)}</td>
            ))}
            <td>{when(k.attributes.createdAt)}</td>
            <td class="actions">
              <RevokeButton name={k.attributes.name} revoked={k.attributes.revoked} onConfirm={() => onRevoke(k.id)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export interface RowAction {
  label: string;
  run: () => unknown;
  danger?: boolean;
  /** The accessible name's verb when it is not the label (`Open console of`). */
  verb?: string;
}

/** A list row's action buttons, each named for its row ("Stop web-1"); `false` entries are left out. */
export function RowActions({ of, actions }: { of: string; actions: Array<RowAction | false> }) {
  return (
    <>
      {actions.map(
        (a) =>
          a && (
            <button key={a.label} type="button" class={a.danger ? 'danger' : undefined} onClick={() => a.run()} aria-label={`${a.verb ?? a.label} ${of}`}>
              {a.label}
            </button>
          ),
      )}
    </>
  );
}
