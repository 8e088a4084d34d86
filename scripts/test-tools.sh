#!/usr/bin/env bash
# Tools the test tiers need beyond Python packages: Debian's chromium for the browser tests.
# Installs when running as root (CI, dev containers); otherwise the browser tests skip and say why.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's chromium for the browser tests"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "warning: could not install chromium; browser tests will be skipped"
  else
    echo "note: chromium is not installed; browser tests will be skipped (apt-get install chromium)"
  fi
fi
