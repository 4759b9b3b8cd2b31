#!/bin/sh
# Every C source and header of the tree is formatted as .clang-format says (one style).
# Prints the files that are not and the command that fixes them.
# Usage: check-format.sh SRCDIR [CLANG_FORMAT]
set -eu
src=$1
cf=${2:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: $cf is not installed (apt-get install clang-format)" >&2
  exit 1
fi
cd "$src"
if [ -d .git ] && command -v git >/dev/null 2>&1; then
  files=$(git ls-files '*.c' '*.h')
else
  files=$(find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' \) -print)
fi
# shellcheck disable=SC2086
if "$cf" --dry-run -Werror $files >/dev/null 2>&1; then
  echo "check-format: $(echo $files | wc -w) files formatted"
  exit 0
fi
bad=
for f in $files; do
  "$cf" --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
  echo "check-format: not formatted as .clang-format says:$bad" >&2
  echo "fix with: clang-format -i$bad" >&2
  exit 1
fi
echo "check-format: $cf failed on the whole list but on no single file" >&2
exit 1
