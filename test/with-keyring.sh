#!/bin/sh
# Runs a command with a Secret Service available, so the keychain suite talks to a real one.
# Where a session bus already exists (a desktop) the command runs as it is; where none exists
# but dbus-run-session and gnome-keyring are installed (CI, headless boxes), a private bus and
# an unlocked throwaway keyring are started for the duration of the command.
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1 \
  || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec "$@"
fi
exec dbus-run-session -- sh -c '
  printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
  exec "$@"
' with-keyring "$@"
