import { useState } from 'preact/hooks';
import { request, session, settings, type Credential } from '../api';
import { Field, FormErrors } from '../ui';

/**
 * Checks the credential with a read any role may make, then keeps it in this tab's sessionStorage: a
 * project API key, or (where the server accepts the identity provider's tokens) a JWT from it.
 */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [kind, setKind] = useState<Credential['kind']>('apiKey');
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const credential = { kind, value: value.trim() };
    try {
      await request('GET', '/v1/instances?limit=1', undefined, credential);
      session.signIn(credential);
      onSignedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  // The API's 401 names no field: it is about the credential, so it is shown under it.
  const aliases = { UNAUTHORIZED: kind, INVALID_CREDENTIALS: kind, FORBIDDEN: kind };
  const choose = (k: Credential['kind']) => {
    setKind(k);
    setValue('');
    setError(undefined);
  };
  return (
    <main id="main" class="signin">
      <h1>Sign in to the cloud console</h1>
      <form onSubmit={submit} aria-label="Sign in">
        {settings.jwt && (
          <fieldset class="choice">
            <legend>Sign in with</legend>
            <label class="inline">
              <input type="radio" name="kind" value="apiKey" checked={kind === 'apiKey'} onChange={() => choose('apiKey')} /> An API key
            </label>
            <label class="inline">
              <input type="radio" name="kind" value="jwt" checked={kind === 'jwt'} onChange={() => choose('jwt')} /> Identity provider (JWT)
            </label>
          </fieldset>
        )}
        {kind === 'apiKey' ? (
          <Field id="apiKey" label="Project API key" error={error} aliases={aliases} hint="Kept in this tab only; signing out or closing the tab forgets it.">
            {(aria) => <input {...aria} type="password" name="apiKey" autoComplete="off" required value={value} onInput={(e) => setValue(e.currentTarget.value)} />}
          </Field>
        ) : (
          <Field id="jwt" label="Identity provider token (JWT)" error={error} aliases={aliases} hint="Kept in this tab only; signing out or closing the tab forgets it.">
            {(aria) => <textarea {...aria} name="jwt" rows={4} autoComplete="off" spellcheck={false} required value={value} onInput={(e) => setValue(e.currentTarget.value)} />}
          </Field>
        )}
        <FormErrors error={error} fields={[kind]} aliases={aliases} />
        <button type="submit" class="primary" disabled={busy || !value.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
