#!/usr/bin/env bash
# onpath.sh DIR: says whether DIR is on the PATH in CHECK_PATH (make passes
# the PATH it was started with; default $PATH), and what to add when it is
# not. `make install` runs it.
set -euo pipefail
dir="$1"
if [ -n "${DESTDIR:-}" ]; then
  echo "Installed into $DESTDIR$dir (a staging root); it goes on PATH where that tree is installed."
  exit 0
fi
want="$(realpath -m "$dir")"
IFS=: read -r -a entries <<< "${CHECK_PATH-$PATH}"
for e in "${entries[@]}"; do
  [ -n "$e" ] || continue
  if [ "$e" = "$dir" ] || [ "$(realpath -m "$e")" = "$want" ]; then
    echo "gatehouse is on your PATH, in $dir."
    exit 0
  fi
  if [ -x "$e/gatehouse" ] && [ ! -d "$e/gatehouse" ]; then
    echo "$e/gatehouse comes before $dir on your PATH, so 'gatehouse' runs that one; remove it or put $dir first."
    exit 0
  fi
done
case "$(basename "${SHELL:-bash}")" in
  zsh) rc="~/.zshrc" ;;
  fish) rc="" ;;
  *) rc="~/.profile (or ~/.bashrc)" ;;
esac
if [ -z "$rc" ]; then
  echo "$dir is not on your PATH, so 'gatehouse' will not be found; add it with: fish_add_path $dir"
else
  echo "$dir is not on your PATH, so 'gatehouse' will not be found; add this line to $rc and open a new terminal:"
  echo "  export PATH=\"$dir:\$PATH\""
fi
