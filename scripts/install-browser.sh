#!/bin/sh
# Installs Debian's Chromium for the dashboard's browser tests (playwright-core
# drives /usr/bin/chromium; no browser is ever downloaded by Playwright).
# Idempotent: does nothing when Chromium is already installed.
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update && $SUDO apt-get install -y chromium
