#!/usr/bin/env bash
# Installs the Debian packages the tests need, once: a second run finds
# them and does nothing.
set -euo pipefail
need=()
command -v gtkwave   >/dev/null 2>&1 || need+=(gtkwave)
command -v xvfb-run  >/dev/null 2>&1 || need+=(xvfb)
command -v iverilog  >/dev/null 2>&1 || need+=(iverilog)
command -v verilator >/dev/null 2>&1 || need+=(verilator)
command -v import    >/dev/null 2>&1 || need+=(imagemagick)
command -v python3   >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
