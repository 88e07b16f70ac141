#!/bin/sh
# get-source.sh PACKAGE DIR — Debian's source package of a library (cjson,
# zlib: the version this machine's apt knows) unpacked under DIR, for the
# browser build to compile with emcc. apt gets a private copy of the machine's own mirror lines, as
# deb-src, and its own lists and cache under DIR: the system's apt
# configuration and state are not touched.
set -e
pkg=$1
mkdir -p "$2/apt/parts" "$2/apt/lists/partial" "$2/apt/cache/archives/partial"
dir=$(cd "$2" && pwd)
rm -f "$dir/apt/parts/"*
for f in /etc/apt/sources.list.d/*.sources; do
  [ -e "$f" ] && sed 's/^Types:.*deb\b.*$/Types: deb-src/' "$f" > "$dir/apt/parts/$(basename "$f")"
done
list="$dir/apt/sources.list"
sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list > "$list" 2>/dev/null || : > "$list"
apt="-o Dir::Etc::sourcelist=$list -o Dir::Etc::sourceparts=$dir/apt/parts -o Dir::State::Lists=$dir/apt/lists
     -o Dir::Cache=$dir/apt/cache -o Debug::NoLocking=1 -o APT::Sandbox::User=root -q"
apt-get $apt update >/dev/null
cd "$dir"
rm -rf "$pkg"-*/
apt-get $apt source "$pkg" >/dev/null
ls -d "$pkg"-*/ >/dev/null
