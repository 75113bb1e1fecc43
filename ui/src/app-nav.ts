// Client-side navigation over {base}panel/<page>: pages read their state from the URL.
import { useEffect, useState } from 'preact/hooks';

export function navigate(url: string, replace = false) {
  if (url === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  dispatchEvent(new Event('panel:navigate'));
}

export function useLocation(): string {
  const [loc, setLoc] = useState(location.pathname + location.search);
  useEffect(() => {
    const on = () => setLoc(location.pathname + location.search);
    addEventListener('popstate', on);
    addEventListener('panel:navigate', on);
    return () => {
      removeEventListener('popstate', on);
      removeEventListener('panel:navigate', on);
    };
  }, []);
  return loc;
}
