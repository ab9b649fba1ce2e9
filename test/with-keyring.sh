#!/bin/sh
# Runs a command with a Secret Service available, so the keychain suite talks to a real one.
# Where a session bus already exists (a desktop) the command runs as it is; where none exists
# but dbus-run-session and gnome-keyring are installed (CI, headless boxes), a private bus and
# an unlocked throwaway keyring are started for the duration of the command. The keyring's
# files live in a temporary folder of their own (not ~/.local/share/keyrings), so runs side by
# side on one machine never share, overwrite or reload each other's entries. The daemon runs in
# the foreground as a child of this script and is stopped when the command ends: a daemonized
# one outlives the private bus, and so is one left by a run that is interrupted (INT, TERM,
# HUP end the daemon and remove its folder before the script goes).
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1 \
  || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec "$@"
fi
exec dbus-run-session --dbus-daemon="$(dirname "$0")/helpers/dbus-daemon-quiet.sh" -- sh -c '
  data=$(mktemp -d "${TMPDIR:-/tmp}/as-keyring-XXXXXX") || exit 1
  keyring=
  stop() {
    [ -n "$keyring" ] && kill "$keyring" 2>/dev/null && wait "$keyring" 2>/dev/null
    rm -rf "$data"
  }
  trap "stop; exit 130" INT
  trap "stop; exit 143" TERM
  trap "stop; exit 129" HUP
  printf pw | XDG_DATA_HOME="$data" gnome-keyring-daemon --foreground --unlock \
    --components=secrets >/dev/null 2>&1 &
  keyring=$!
  # Ready once it owns the Secret Service name on the bus (bounded: 5 s at most).
  i=0
  while [ $i -lt 50 ]; do
    if command -v dbus-send >/dev/null 2>&1; then
      dbus-send --session --dest=org.freedesktop.DBus --print-reply /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
        | grep -q "boolean true" && break
    elif [ $i -ge 10 ]; then
      break
    fi
    sleep 0.1
    i=$((i + 1))
  done
  "$@"
  rc=$?
  stop
  exit $rc
' with-keyring "$@"
