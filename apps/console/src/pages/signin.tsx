import { useState } from 'preact/hooks';
import { request, session } from '../api';
import { Field, FormErrors } from '../ui';

/** Checks the key with a read any role may make, then keeps it in this tab's sessionStorage. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await request('GET', '/v1/instances?limit=1', undefined, key.trim());
      session.signIn(key.trim());
      onSignedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  // The API's 401 names no field: it is about the key, so it is shown under the key.
  const aliases = { UNAUTHORIZED: 'apiKey', INVALID_CREDENTIALS: 'apiKey', FORBIDDEN: 'apiKey' };
  return (
    <main id="main" class="signin">
      <h1>Sign in to the cloud console</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <Field id="apiKey" label="Project API key" error={error} aliases={aliases} hint="Kept in this tab only; signing out or closing the tab forgets it.">
          {(aria) => <input {...aria} type="password" name="apiKey" autoComplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />}
        </Field>
        <FormErrors error={error} fields={['apiKey']} aliases={aliases} />
        <button type="submit" class="primary" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
