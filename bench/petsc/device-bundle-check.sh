#!/usr/bin/env bash
# device-bundle-check.sh — try the archive of device-bundle.sh here as the GPU machine would run
# it: bench/petsc/device-petsc.sh (cpu backend only) inside a private mount namespace whose
# library folder holds only the C library, what the shell tools need, and (unless BARE=1) the
# host-first libraries the GPU machine has (libstdc++, libgcc_s, libgomp, libhwloc, libudev).
# PETSc, OpenMPI (its libraries, components, help texts, orted) and everything else installed
# here are hidden, and the loader's cache is rebuilt for that view, so whatever the bench loads
# comes from the bundle or from that base. Needs root (unshare, mount).
#
#   bash bench/petsc/device-bundle-check.sh        # OUT (default /tmp/zs-petsc-check) gets the results
#   BARE=1 bash bench/petsc/device-bundle-check.sh # no host-first libraries: the fallbacks are used
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
OUT=${OUT:-/tmp/zs-petsc-check}
libdir=/usr/lib/x86_64-linux-gnu
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT

# The C library's own objects, then what bash, coreutils, mount, tar, xz, grep and sed load.
keep=(ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2 librt.so.1
  libresolv.so.2 libutil.so.1 libanl.so.1 libthread_db.so.1 libnss_files.so.2 libnss_dns.so.2
  libacl.so.1 liblzma.so.5 libpcre2-8.so.0 libselinux.so.1 libtinfo.so.6 libattr.so.1
  libmount.so.1 libblkid.so.1)
[ "${BARE:-0}" = 1 ] || keep+=(libstdc++.so.6 libgcc_s.so.1 libgomp.so.1 libhwloc.so.15 libudev.so.1)
mkdir -p "$base/lib" "$base/empty"
for so in "${keep[@]}"; do
  [ -e "$libdir/$so" ] && cp -L "$libdir/$so" "$base/lib/"
done
: >"$base/no-orted"

export OUT
unshare --mount --propagation private bash -c '
  set -e
  base=$1 libdir=$2
  mount --bind "$base/lib" "$libdir"
  # the loader'"'"'s cache for that view (ldconfig is static), in place of the real one
  ldconfig -C "$base/ld.so.cache"
  mount --bind "$base/ld.so.cache" /etc/ld.so.cache
  for d in /usr/lib/petscdir /usr/share/openmpi /etc/openmpi /usr/local/lib; do
    [ -d "$d" ] && mount --bind "$base/empty" "$d"
  done
  for f in /usr/bin/orted /usr/bin/mpirun /usr/bin/mpiexec; do
    [ -e "$f" ] && mount --bind "$base/no-orted" "$f"
  done
  echo "check: $(ls "$libdir" | wc -l) libraries visible in $libdir; ldconfig -p knows $(ldconfig -p | grep -c "=>")"
  CUDA=0 CPU_FORMATS=${CPU_FORMATS:-csr,csr/copy,gcsb,dtans} MATRIX=${MATRIX:-gen:stencil2d:n=300} REPS=${REPS:-5} \
    KSP_ITS=${KSP_ITS:-5} bash bench/petsc/device-petsc.sh
  # every library the bundle brings resolved from the bundle or this base, none from elsewhere
  if grep "=> /" "$OUT/ldd.txt" | grep -v "=> /tmp/zs-petsc-bundle/" | grep -v "=> $libdir/" |
     grep -v "=> /lib/x86_64-linux-gnu/"; then
    echo "check: libraries resolved outside the bundle and the base (above)"; exit 1
  fi
  echo "check: every library from the bundle or the base system"
' check "$base" "$libdir"
