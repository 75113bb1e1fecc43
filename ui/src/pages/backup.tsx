// Not built yet: the Overview's backup card (download and restore) lands in this module.
export function Backup() {
  return null;
}
