import { useEffect, useState } from 'preact/hooks';
import { api, type Resource } from './api';
import { cents, Field, FormErrors } from './ui';

export interface Option {
  value: string;
  label: string;
}

/** One control of a create form: a text input, or a picker when it has options. */
export interface FormField<K extends string> {
  /** The API's name for the field (the last segment of an error's pointer). */
  name: K;
  label: string;
  options?: Option[];
  /** The picker's empty choice ("Choose…" unless said). */
  empty?: string;
  /** Part of the price: the estimate is re-asked when it changes, and its errors show next to it. */
  priced?: boolean;
}

interface Estimate {
  hourlyCents: number;
  monthlyCents: number;
  currency: string;
}

interface CreateFormProps<K extends string> {
  /** `new` gives ids `new-name`, `new-name-error`, … */
  idPrefix: string;
  title: string;
  /** `Instance`: "Instance web-1 requested." */
  noun: string;
  /** The create route (POST) and the estimate's `resourceType` (DECISIONS 22: the same body). */
  path: string;
  resourceType: string;
  fields: FormField<K>[];
  form: Record<K, string>;
  setForm: (update: (f: Record<K, string>) => Record<K, string>) => void;
  /** The create body from the form (empty optional fields left out). */
  body: (form: Record<K, string>) => Record<string, unknown>;
  /** The fields the estimate needs before it is asked for. */
  needed: K[];
  /** Stand-ins, in the estimate, for the fields that do not change the price but that the create's schema requires. */
  placeholders?: Partial<Record<K, string>>;
  /** Errors that name no pointer but are about one field of the form (their code → the field). */
  aliases?: Record<string, string>;
  submitLabel: string;
  /** Clears the fields that name one resource (its name…) after a create. */
  clearAfter: K[];
  onCreated: (created: Resource<{ name: string }>) => void;
}

/**
 * A catalog-fed create form with its cost estimate (DECISIONS 22), shared by instances and servers:
 * the estimate is re-asked (debounced) as the priced choices change, and every error the API answers
 * (the create's or the estimate's) is shown as its `detail` next to the field its pointer names.
 */
export function CreateForm<K extends string>(props: CreateFormProps<K>) {
  const { idPrefix, title, noun, path, resourceType, fields, form, setForm, body, needed, placeholders = {}, aliases = {}, submitLabel, clearAfter, onCreated } = props;
  const [estimate, setEstimate] = useState<Estimate>();
  const [estimateError, setEstimateError] = useState<unknown>();
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<string>();
  const [busy, setBusy] = useState(false);

  const ready = needed.every((k) => form[k]);
  // The unpriced fields are always their stand-ins: typing a name re-asks nothing, and a name the
  // create would refuse does not hide the price.
  const estimateBody = ready ? JSON.stringify(body({ ...form, ...placeholders })) : '';
  useEffect(() => {
    setEstimate(undefined);
    setEstimateError(undefined);
    if (!estimateBody) return;
    let live = true;
    const timer = setTimeout(() => {
      api.post<{ data: { attributes: Estimate } }>('/v1/cost-estimates', { items: [{ resourceType, attributes: JSON.parse(estimateBody) }] }).then(
        (r) => live && setEstimate(r.data.attributes),
        (err) => live && setEstimateError(err),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [estimateBody]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setCreated(undefined);
    try {
      const res = await api.post<{ data: Resource<{ name: string }> }>(path, body(form));
      setCreated(res.data.attributes.name);
      setForm((f) => Object.assign({}, f, Object.fromEntries(clearAfter.map((k) => [k, '']))));
      onCreated(res.data);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const names = fields.map((f) => f.name as string);
  const set = (name: K, value: string) => setForm((f) => Object.assign({}, f, { [name]: value }));
  return (
    <section aria-labelledby={`${idPrefix}-h`} class="panel">
      <h2 id={`${idPrefix}-h`}>{title}</h2>
      {/* No `required`: the API validates, and its answer is what the form shows. */}
      <form onSubmit={submit} aria-label={title} class="grid-form">
        {fields.map((f) => (
          <Field key={f.name} id={`${idPrefix}-${f.name}`} name={f.name} label={f.label} error={error ?? (f.priced ? estimateError : undefined)} aliases={aliases}>
            {(aria) =>
              f.options ? (
                <select {...aria} value={form[f.name]} onChange={(e) => set(f.name, e.currentTarget.value)}>
                  <option value="">{f.empty ?? 'Choose…'}</option>
                  {f.options.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              ) : (
                <input {...aria} value={form[f.name]} onInput={(e) => set(f.name, e.currentTarget.value)} />
              )
            }
          </Field>
        ))}
        <div class="estimate" aria-live="polite" data-testid="estimate">
          {estimate ? (
            <>
              Estimated cost: <strong>{cents(estimate.hourlyCents, estimate.currency)}</strong> an hour, <strong>{cents(estimate.monthlyCents, estimate.currency)}</strong> a month
            </>
          ) : (
            <span class="muted">Choose the {new Intl.ListFormat('en').format(needed.map((k) => fields.find((f) => f.name === k)?.label.toLowerCase() ?? k))} to see the cost.</span>
          )}
        </div>
        <FormErrors error={error} fields={names} aliases={aliases} />
        {/* The estimate's errors about unpriced fields wait for the create, which answers them too. */}
        <FormErrors error={estimateError} fields={names} aliases={aliases} />
        <div class="submit">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : submitLabel}
          </button>
        </div>
        {created && (
          <p role="status" class="ok">
            {noun} {created} requested.
          </p>
        )}
      </form>
    </section>
  );
}
