#!/bin/sh
# The session bus of test/with-keyring.sh: dbus-daemon itself (exec: the same process, so
# dbus-run-session stops the daemon it started), logging to syslog only. Run as root without
# CAP_SYS_RESOURCE (containers, CI) it would print "Failed to set fd limit to 65536" to the
# test run's stderr on every start: noise that says nothing about the tests.
exec dbus-daemon --syslog-only "$@"
