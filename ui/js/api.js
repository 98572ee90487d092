// Every request the page makes goes through here: one place for the bearer token and for errors.

// A token given as #token=… is kept for this tab only and taken out of the address bar at once, so
// it is not left in the history, a bookmark or a screenshot. It never goes in a URL to the server:
// only in the Authorization header.
const hash = new URLSearchParams(location.hash.slice(1));
let token = hash.get('token') ?? sessionStorage.getItem('spanscore.token');
if (token) sessionStorage.setItem('spanscore.token', token);
if (hash.has('token')) {
  hash.delete('token');
  const rest = hash.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
}

/** Called when the service asks for a (better) token: the page shows its token form. */
let onAuthNeeded = () => undefined;

export function whenAuthNeeded(callback) {
  onAuthNeeded = callback;
}

export function useToken(value) {
  token = value;
  sessionStorage.setItem('spanscore.token', value);
}

async function request(path) {
  const response = await fetch(`../api/v1/${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (response.status === 401 || response.status === 403) {
    onAuthNeeded();
    const body = await response.json().catch(() => ({}));
    throw new Error(
      body.error ??
        (response.status === 401
          ? 'this service needs a read token'
          : 'this token may not read results'),
    );
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.error ?? `HTTP ${response.status}`);
  }
  return response;
}

/** GET /api/v1/<path> as JSON. */
export async function api(path) {
  return (await request(path)).json();
}

/** GET /api/v1/<path> as text (the test case YAML). */
export async function apiText(path) {
  return (await request(path)).text();
}
