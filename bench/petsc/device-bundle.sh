#!/usr/bin/env bash
# device-bundle.sh — pack what the PETSc bench needs on a machine without PETSc or MPI (the GPU
# machine) into one archive: the bench, the example and the zsparse tool built here, libzsparse and
# libzsparse-petsc, Debian's PETSc with its whole shared-library closure, and the part of OpenMPI
# that starts one rank without mpirun (a singleton). Run it here, from the repository root;
# bench/petsc/device-petsc.sh unpacks and runs it there.
#
#   bash bench/petsc/device-bundle.sh [BUILD]     # BUILD: a configured build (default build-host)
#
# Writes .petsc-bundle/zs-petsc-bundle.tar.xz (git-ignored) and prints its size. Layout:
#   bin/        zs-petsc-bench, zs-petsc-solve, zsparse
#   lib/        every library they load, named by soname, except the C library's own (libc, libm,
#               libpthread, libdl, librt, libresolv, ld-linux, ...): the newer glibc there runs
#               what was linked here against the older one
#   fallback/   libraries the machine there most likely has in a newer version (libstdc++,
#               libgcc_s, libgomp, libhwloc): device-petsc.sh uses each only where ldconfig
#               there does not know it
#   ompi/       OPAL_PREFIX for OpenMPI: its components (those that need no network fabric
#               library: no UCX, libfabric, verbs, PSM, PMIx server, OpenSHMEM) and help texts
#   MANIFEST    commit, build, and where each file came from
set -euo pipefail

build=${1:-build-host}
root=$(git rev-parse --show-toplevel)
cd "$root"
out_dir=.petsc-bundle
archive=$out_dir/zs-petsc-bundle.tar.xz

if [ ! -f "$build/build.ninja" ]; then
  echo "device-bundle.sh: $build is not a configured build (meson setup $build -Dpetsc=enabled)" >&2
  exit 2
fi
ninja -C "$build" petsc/zs-petsc-bench petsc/zs-petsc-solve tools/zsparse/zsparse >/dev/null
for f in petsc/zs-petsc-bench petsc/zs-petsc-solve tools/zsparse/zsparse; do
  if [ ! -x "$build/$f" ]; then
    echo "device-bundle.sh: $build/$f was not built (is PETSc found? meson configure $build | grep petsc)" >&2
    exit 2
  fi
done
pkglib=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed -n 's/^path:pkglibdir://p')
pkgdata=$(ompi_info --path pkgdatadir --parsable 2>/dev/null | sed -n 's/^path:pkgdatadir://p')
if [ ! -d "$pkglib" ] || [ ! -d "$pkgdata" ]; then
  echo "device-bundle.sh: ompi_info names no OpenMPI component folder (apt-get install openmpi-bin)" >&2
  exit 2
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,lib,fallback,ompi/lib/openmpi,ompi/share/openmpi,ompi/etc}
manifest=$stage/MANIFEST

# The C library's own objects: the machine there brings its own, newer one.
glibc='^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libmvec\.so\.1|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libanl\.so\.1|libBrokenLocale\.so\.1|libthread_db\.so\.1|libc_malloc_debug\.so\.0|linux-vdso\.so\.1)$'
# Libraries the GPU machine has (its compiler's runtime; hwloc for zsparse's own builds there).
host_first='^(libstdc\+\+\.so\.6|libgcc_s\.so\.1|libgomp\.so\.1|libhwloc\.so\.15)$'
# OpenMPI components left out: they need network fabric libraries (tens of MB) a singleton
# never uses, or OpenSHMEM, or an external PMIx server.
skip_component='lib(ucp|ucs|uct|ucm|fabric|ibverbs|rdmacm|psm_infinipath|psm2|pmix|oshmem|mca_common_ucx|mca_common_ofi|mca_common_verbs)\.'

# add_closure FILE: copy every library FILE loads (ldd: the whole closure) into lib/ or
# fallback/, named by soname, once.
add_closure() {
  local line name path deps
  # ldd's output is kept before grep reads it: grep -q stopping early would end ldd with
  # SIGPIPE, and pipefail would turn a match into a failure
  deps=$(ldd "$1")
  if grep -q 'not found' <<<"$deps"; then
    echo "device-bundle.sh: $1 has unresolved libraries here:" >&2
    grep 'not found' <<<"$deps" >&2
    exit 1
  fi
  while read -r line; do
    name=${line%% =>*}
    path=${line#*=> }
    path=${path%% (*}
    [[ $name =~ $glibc ]] && continue
    [ -e "$stage/lib/$name" ] || [ -e "$stage/fallback/$name" ] && continue
    if [[ $name =~ $host_first ]]; then
      cp -L "$path" "$stage/fallback/$name"
    else
      cp -L "$path" "$stage/lib/$name"
    fi
    echo "lib $name <- $(readlink -f "$path")" >>"$manifest"
  done < <(grep '=> /' <<<"$deps" | sed 's/^[[:space:]]*//')
}

{
  echo "zsparse $(git describe --always --dirty) ($(git log -1 --format=%cs)), built in $build"
  echo "host: $(. /etc/os-release && echo "$PRETTY_NAME"), $(ldd --version | head -n 1)"
  echo "petsc: $(dpkg-query -W -f='${Package} ${Version}' libpetsc-real3.18 2>/dev/null || echo '?')"
  echo "openmpi: $(dpkg-query -W -f='${Package} ${Version}' libopenmpi3 2>/dev/null || echo '?')"
} >"$manifest"

for f in petsc/zs-petsc-bench petsc/zs-petsc-solve tools/zsparse/zsparse; do
  cp -L "$build/$f" "$stage/bin/"
  echo "bin $(basename "$f") <- $build/$f" >>"$manifest"
  add_closure "$build/$f"
done

kept=0 skipped=0
for c in "$pkglib"/*.so; do
  deps=$(ldd "$c")
  if grep -Eq "$skip_component|not found" <<<"$deps"; then
    skipped=$((skipped + 1))
    continue
  fi
  cp -L "$c" "$stage/ompi/lib/openmpi/"
  add_closure "$c"
  kept=$((kept + 1))
done
echo "ompi components: $kept kept, $skipped left out (network fabrics, OpenSHMEM, PMIx)" >>"$manifest"
cp -L "$pkgdata"/help-*.txt "$stage/ompi/share/openmpi/"
# An empty system parameter file: the settings come from the environment (device-petsc.sh).
: >"$stage/ompi/etc/openmpi-mca-params.conf"

mkdir -p "$out_dir"
echo "sizes: $(du -sh "$stage" | cut -f1) unpacked" >>"$manifest"
# xz -9 rather than gzip: the closure is ~100 MB and has to travel with the call (64 MiB in all).
tar -C "$stage" -cf - . | xz -9 -T2 >"$archive.tmp"
mv "$archive.tmp" "$archive"
cp "$manifest" "$out_dir/MANIFEST"
echo "$archive: $(du -h "$archive" | cut -f1) ($(du -sh "$stage" | cut -f1) unpacked; $(grep -c '^lib ' "$manifest") libraries, $kept OpenMPI components)"
