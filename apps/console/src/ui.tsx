import { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

/** What an asynchronous load is at: loading, failed (with the API's problem), or its value. */
export type Load<T> =
  { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'done'; value: T };

function asApiError(error: unknown): ApiError {
  return error instanceof ApiError
    ? error
    : new ApiError(0, error instanceof Error ? error.message : String(error));
}

/** Runs `load` when `deps` change; `reload` runs it again. Answers of a stale run are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Load<T>, () => void] {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setResult((previous) => (previous.state === 'done' && tick > 0 ? previous : { state: 'loading' }));
    load().then(
      (value) => current && setResult({ state: 'done', value }),
      (error: unknown) => current && setResult({ state: 'error', error: asApiError(error) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, tick]);
  return [result, useCallback(() => setTick((n) => n + 1), [])];
}

/** Runs an action (a button's), keeping its pending state and its error for the page to show. */
export function useAction(): {
  pending: boolean;
  error?: ApiError;
  run: (action: () => Promise<void>) => Promise<void>;
  clear: () => void;
} {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError>();
  const run = useCallback(async (action: () => Promise<void>) => {
    setPending(true);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setPending(false);
    }
  }, []);
  return { pending, error, run, clear: () => setError(undefined) };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A problem the API answered, as it worded it: what went wrong (`detail`) and what to do (`recovery`). */
export function Problem({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  return (
    <div class="problem" role="alert" data-testid="problem">
      <p class="problem-detail">{error.detail}</p>
      {error.fields.length > 0 && (
        <ul>
          {error.fields.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
      {error.recovery && <p class="problem-recovery">{error.recovery}</p>}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Renders a Load: its loading and error states, or `children` of the value. */
export function Loaded<T>({
  load,
  what,
  onRetry,
  children,
}: {
  load: Load<T>;
  what: string;
  onRetry?: () => void;
  children: (value: T) => ComponentChildren;
}) {
  if (load.state === 'loading') return <Loading what={what} />;
  if (load.state === 'error') return <Problem error={load.error} onRetry={onRetry} />;
  return <>{children(load.value)}</>;
}

/** A modal dialog (the platform's <dialog>: focus stays inside, Escape closes it). */
export function Dialog({
  title,
  open,
  onClose,
  children,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onClose={onClose} onCancel={onClose}>
      {open && (
        <>
          <h2 id="dialog-title">{title}</h2>
          {children}
        </>
      )}
    </dialog>
  );
}

export function formatDate(value: string | Date | undefined): string {
  if (!value) return '—';
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return String(value);
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

export function formatDay(value: string | Date): string {
  return (typeof value === 'string' ? value : value.toISOString()).slice(0, 10);
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

/** Revocation reason codes a leaf may be revoked with (docs/api.md#revoke-a-certificate). */
export const REASON_CODES = [
  'Unspecified',
  'KeyCompromise',
  'AffiliationChanged',
  'Superseded',
  'CessationOfOperation',
  'CertificateHold',
  'PrivilegeWithdrawn',
] as const;
