#!/usr/bin/env bash
# Installs what `make run` (deps.sh build) or `make test` (deps.sh test) needs
# and is missing. Safe to run again: it only installs what is absent.
set -euo pipefail

want="${1:-build}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Debian packages, by purpose.
build_pkgs=(gcc libc6-dev make git ca-certificates pkg-config)
run_pkgs=(bubblewrap)
test_pkgs=(bubblewrap podman runc busybox-static sqlite3 passwd uidmap iproute2 util-linux procps)

pkgs=("${build_pkgs[@]}" "${run_pkgs[@]}")
if [ "$want" = "test" ]; then pkgs+=("${test_pkgs[@]}"); fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Go: the machine's toolchain at /usr/local/go, or Debian's, which then
# fetches the version go.mod names from the Go module proxy.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "deps: no Go toolchain found; install Go 1.26 (https://go.dev/dl) or put it on PATH, then run make again." >&2
  exit 1
fi
echo "deps: ok ($want)"
