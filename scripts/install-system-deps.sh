#!/usr/bin/env bash
# System packages the tests need (Debian): Chromium and Firefox ESR for the end-to-end extension tests,
# Xvfb and xdotool for the ones that press real keys in headed browsers (tests/e2e/test_real_keys.py),
# Node/npm for the extension's JS unit tests and `web-ext lint`, strace for the host's no-network test
# (tests/host/test_no_network.py), debootstrap and lintian for `make test-deb`.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v firefox-esr >/dev/null 2>&1 || need+=(firefox-esr)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v strace >/dev/null 2>&1 || need+=(strace)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)  # make test-deb: a clean Debian 12 root
command -v lintian >/dev/null 2>&1 || need+=(lintian)  # make test-deb: the package's checks
if [ ${#need[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}"
fi
