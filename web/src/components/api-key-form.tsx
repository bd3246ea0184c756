import { useState } from 'preact/hooks';

/** Asks for the server's API key (kept in this browser's local storage only). */
export function ApiKeyForm({ hadKey, onKey }: { hadKey: boolean; onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <form
      class="api-key"
      onSubmit={(event) => {
        event.preventDefault();
        if (key.trim()) onKey(key.trim());
      }}
    >
      <h1>kgrag</h1>
      <p>{hadKey ? 'The server refused the API key.' : 'This server needs an API key.'} Enter one of the keys in its <code>server.apiKeys</code> (or <code>KGRAG_API_KEYS</code>); it stays in this browser.</p>
      <input type="password" aria-label="API key" autocomplete="off" value={key} onInput={(event) => setKey(event.currentTarget.value)} />
      <button type="submit">Connect</button>
    </form>
  );
}
