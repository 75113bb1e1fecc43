#!/bin/sh
# Installs a proxy-panel release as a systemd service.
#
#   scripts/install.sh [options] VERSION|ARCHIVE
#
#   VERSION   e.g. 0.2.0: downloads proxy-panel-VERSION.tar.gz and its .sha256 from the release feed
#   ARCHIVE   a local proxy-panel-X.Y.Z.tar.gz (checked against ARCHIVE.sha256 when that file exists)
#
# Options (or the environment variable in brackets):
#   --prefix DIR      install prefix                        [PANEL_PREFIX, default /usr/local/proxy-panel]
#   --data-dir DIR    database, core config, logs (0700)    [PANEL_DATA_DIR, default /var/lib/proxy-panel]
#   --user NAME       system user the panel runs as         [PANEL_USER, default proxy-panel]
#   --port N          panel port on first install           [PANEL_PORT, default 2053]
#   --unit-dir DIR    where the systemd unit goes           [PANEL_UNIT_DIR, default /etc/systemd/system]
#   --no-systemd      write the unit but do not enable or start it
#
# Layout: PREFIX/releases/<version>/, PREFIX/current -> the running one, PREFIX/etc/panel.env (settings of the
# service). The panel updates itself in place (POST /panel/api/server/updatePanel) and rolls back on failure,
# so PREFIX belongs to the service user. Uninstall with scripts/uninstall.sh.
set -eu

PREFIX=${PANEL_PREFIX:-/usr/local/proxy-panel}
DATA=${PANEL_DATA_DIR:-/var/lib/proxy-panel}
SVC_USER=${PANEL_USER:-proxy-panel}
PORT=${PANEL_PORT:-2053}
UNIT_DIR=${PANEL_UNIT_DIR:-/etc/systemd/system}
REPO=${PANEL_RELEASE_REPO:-proxy-panel/proxy-panel}
DOWNLOAD=${PANEL_RELEASE_DOWNLOAD:-https://github.com}
UNIT=proxy-panel.service
SYSTEMD=1
SRC=

die() { echo "install: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=$2; shift 2 ;;
    --data-dir) DATA=$2; shift 2 ;;
    --user) SVC_USER=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --unit-dir) UNIT_DIR=$2; shift 2 ;;
    --no-systemd) SYSTEMD=0; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) [ -z "$SRC" ] || die "one VERSION or ARCHIVE only"; SRC=$1; shift ;;
  esac
done
[ -n "$SRC" ] || die "usage: install.sh [options] VERSION|ARCHIVE (see --help)"
case "$PREFIX" in /*) ;; *) die "--prefix must be an absolute path" ;; esac
case "$DATA" in /*) ;; *) die "--data-dir must be an absolute path" ;; esac

NODE=$(command -v node) || die "Node.js 20.11 or newer is required (node not found on PATH)"
"$NODE" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=11)?0:1)' \
  || die "Node.js 20.11 or newer is required (found $("$NODE" -v))"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [ -f "$SRC" ]; then
  ARCHIVE=$SRC
  if [ -f "$SRC.sha256" ]; then
    want=$(cut -d' ' -f1 "$SRC.sha256")
    got=$(sha256sum "$ARCHIVE" | cut -d' ' -f1)
    [ "$want" = "$got" ] || die "$ARCHIVE does not match $SRC.sha256"
  fi
else
  VERSION=${SRC#v}
  echo "$VERSION" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' || die "$SRC is neither a file nor a version such as 0.2.0"
  ARCHIVE=$TMP/proxy-panel-$VERSION.tar.gz
  URL=$DOWNLOAD/$REPO/releases/download/v$VERSION/proxy-panel-$VERSION.tar.gz
  echo "downloading $URL"
  curl -fsSL -o "$ARCHIVE" "$URL" || die "download failed: $URL"
  curl -fsSL -o "$ARCHIVE.sha256" "$URL.sha256" || die "download failed: $URL.sha256"
  want=$(cut -d' ' -f1 "$ARCHIVE.sha256")
  got=$(sha256sum "$ARCHIVE" | cut -d' ' -f1)
  [ "$want" = "$got" ] || die "the download does not match its published SHA-256"
fi

mkdir -p "$TMP/x"
tar -xzf "$ARCHIVE" -C "$TMP/x" --strip-components=1 --no-same-owner || die "$ARCHIVE does not unpack"
VERSION=$("$NODE" -e 'const p=require(process.argv[1]);if(p.name!=="proxy-panel")process.exit(1);console.log(p.version)' "$TMP/x/package.json") \
  || die "$ARCHIVE is not a proxy-panel release"
[ -f "$TMP/x/dist/adapters/node/launcher.js" ] && [ -d "$TMP/x/node_modules" ] || die "$ARCHIVE lacks dist/ or node_modules/"

# The system user (only root can create one; otherwise it must exist already).
if ! id -u "$SVC_USER" >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || die "user $SVC_USER does not exist and only root can create it"
  useradd --system --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin "$SVC_USER"
  echo "created system user $SVC_USER"
fi

mkdir -p "$PREFIX/releases" "$PREFIX/etc"
rm -rf "$PREFIX/releases/$VERSION"
mv "$TMP/x" "$PREFIX/releases/$VERSION"
ln -sfn "releases/$VERSION" "$PREFIX/current.new" && mv -T "$PREFIX/current.new" "$PREFIX/current"

FIRST=0
[ -e "$DATA/panel.db" ] || FIRST=1
mkdir -p "$DATA"
chmod 0700 "$DATA"

ENV_FILE=$PREFIX/etc/panel.env
if [ ! -f "$ENV_FILE" ]; then
  umask 077
  cat > "$ENV_FILE" <<ENV
# Environment of the proxy-panel service (RUNTIME.md lists every variable).
PANEL_DATA_DIR=$DATA
PANEL_PORT=$PORT
PANEL_PREFIX=$PREFIX
PANEL_SYSTEMD_UNIT=$UNIT
ENV
fi

if [ "$(id -u)" = 0 ]; then
  chown -R "$SVC_USER:" "$PREFIX" "$DATA"
  as_user() { runuser -u "$SVC_USER" -- "$@"; }
else
  as_user() { "$@"; }
fi

PASSWORD=
if [ "$FIRST" = 1 ]; then
  PASSWORD=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)
  # Migrations, then the first admin credential (the panel never prints it again).
  ( set -a; . "$ENV_FILE"; set +a
    as_user "$NODE" "$PREFIX/current/dist/adapters/node/cli.js" migrate >/dev/null
    as_user "$NODE" "$PREFIX/current/dist/adapters/node/cli.js" admin --username admin --password "$PASSWORD" >/dev/null )
fi

mkdir -p "$UNIT_DIR"
cat > "$UNIT_DIR/$UNIT" <<UNITEOF
[Unit]
Description=proxy-panel (proxy core control panel)
Documentation=file://$PREFIX/current/docs/install-and-update.md
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=$SVC_USER
Group=$SVC_USER
EnvironmentFile=$ENV_FILE
WorkingDirectory=$DATA
ExecStart=$NODE $PREFIX/current/dist/adapters/node/launcher.js
Restart=on-failure
RestartSec=3
TimeoutStopSec=20
KillMode=mixed
# Unprivileged: the only capability is binding ports below 1024 (the core, a child, inherits it).
AmbientCapabilities=CAP_NET_BIND_SERVICE
CapabilityBoundingSet=CAP_NET_BIND_SERVICE
NoNewPrivileges=true
UMask=0077
ProtectSystem=full
ProtectHome=true
PrivateTmp=true
ReadWritePaths=$PREFIX $DATA

[Install]
WantedBy=multi-user.target
UNITEOF

HOST=$(hostname -I 2>/dev/null | cut -d' ' -f1)
[ -n "$HOST" ] || HOST=127.0.0.1
if [ "$SYSTEMD" = 1 ] && [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  systemctl enable "$UNIT" >/dev/null
  systemctl restart "$UNIT"
  echo "proxy-panel $VERSION installed in $PREFIX and started ($UNIT)"
else
  echo "proxy-panel $VERSION installed in $PREFIX; unit written to $UNIT_DIR/$UNIT (not started: no systemd here or --no-systemd)"
  echo "run it by hand: set -a; . $ENV_FILE; set +a; $NODE $PREFIX/current/dist/adapters/node/launcher.js"
fi
echo "panel URL: http://$HOST:$PORT/"
if [ -n "$PASSWORD" ]; then
  echo "admin credential: username admin password $PASSWORD (shown once; change it in Settings)"
else
  echo "existing data in $DATA kept; the admin credential is unchanged"
fi
