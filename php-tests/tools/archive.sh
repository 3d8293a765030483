#!/usr/bin/env bash
# Writes target/rediskit-src.tar: the source archive PIE downloads (git
# archive of what is committed plus what would be, honouring .gitattributes
# export-ignore), and checks that it holds everything a source build needs
# and none of the tests and benches.
set -eu
cd "$(dirname "$0")/../.."
out=target/rediskit-src.tar
mkdir -p target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
idx=$tmp/index
# the work tree as it is (new files included), not only the last commit (the
# index's path also holds in a linked worktree, where .git is a file)
cp "$(git rev-parse --git-path index)" "$idx" 2>/dev/null || true
GIT_INDEX_FILE=$idx git add -A
tree=$(GIT_INDEX_FILE=$idx git write-tree)
git archive --format=tar --prefix=rediskit/ -o "$out" "$tree"
files=$(tar -tf "$out")
bad=0
for f in Cargo.toml Cargo.lock build.rs src/lib.rs composer.json pie/config.m4 pie/Makefile.frag README.md LICENSE stubs/rediskit.stubs.php; do
  echo "$files" | grep -qx "rediskit/$f" || { echo "archive lacks $f"; bad=1; }
done
for d in php-tests bench .ci packages; do
  echo "$files" | grep -q "^rediskit/$d/" && { echo "archive holds $d/ (add export-ignore to .gitattributes)"; bad=1; }
done
echo "$(echo "$files" | grep -vc '/$') files, $(du -k "$out" | cut -f1) KiB: $out"
exit $bad
