#!/bin/sh
# Removes an installed proxy-panel: the service, its unit and PREFIX. The data directory (database, core
# config, backups) and the system user are kept unless --purge is given.
#
#   scripts/uninstall.sh [--prefix DIR] [--data-dir DIR] [--user NAME] [--unit-dir DIR] [--purge]
set -eu
PREFIX=${PANEL_PREFIX:-/usr/local/proxy-panel}
DATA=${PANEL_DATA_DIR:-/var/lib/proxy-panel}
SVC_USER=${PANEL_USER:-proxy-panel}
UNIT_DIR=${PANEL_UNIT_DIR:-/etc/systemd/system}
UNIT=proxy-panel.service
PURGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=$2; shift 2 ;;
    --data-dir) DATA=$2; shift 2 ;;
    --user) SVC_USER=$2; shift 2 ;;
    --unit-dir) UNIT_DIR=$2; shift 2 ;;
    --purge) PURGE=1; shift ;;
    *) echo "uninstall: unknown argument $1" >&2; exit 1 ;;
  esac
done
if [ -d /run/systemd/system ] && [ -f "$UNIT_DIR/$UNIT" ]; then
  systemctl disable --now "$UNIT" >/dev/null 2>&1 || true
fi
rm -f "$UNIT_DIR/$UNIT"
[ -d /run/systemd/system ] && systemctl daemon-reload || true
[ -f "$PREFIX/current/dist/adapters/node/launcher.js" ] || [ ! -e "$PREFIX" ] || { echo "uninstall: $PREFIX is not a proxy-panel install; left alone" >&2; exit 1; }
rm -rf "$PREFIX"
echo "removed $PREFIX and $UNIT"
if [ "$PURGE" = 1 ]; then
  rm -rf "$DATA"
  if [ "$(id -u)" = 0 ] && [ "$SVC_USER" = proxy-panel ] && id -u "$SVC_USER" >/dev/null 2>&1; then userdel "$SVC_USER" || true; fi
  echo "removed the data in $DATA"
else
  echo "data kept in $DATA (remove it with --purge)"
fi
