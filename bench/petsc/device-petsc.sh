#!/usr/bin/env bash
# device-petsc.sh — on the GPU machine (no PETSc, no MPI there), from the repository root: unpack
# the archive of bench/petsc/device-bundle.sh and run the PETSc bench on one rank, without mpirun:
# aij against aijzsparse on the cuda backend (every format it has a kernel for) and on the cpu
# backend (one thread, as aij). Tables on stdout; CSV, logs and the library report under $OUT.
#
#   ZS_MODULE_DIR=.ab/cur OUT=/some/dir bash bench/petsc/device-petsc.sh
#
# Environment:
#   ZS_MODULE_DIR  a folder holding libzsparse-cuda.so of the same commit as the bundle (built on
#                  the development machine with bench/module-variant.sh, carried with the call);
#                  unset: the cuda run is skipped with a message, unless BUILD_MODULE=1 builds it
#                  here first (bench/module-variant.sh: minutes of nvcc)
#   BUNDLE         the archive (default .petsc-bundle/zs-petsc-bundle.tar.xz)
#   OUT            where results go (default ./device-out)
#   MATRIX         the bench's -matrix (default gen:stencil2d:n=1000: 10^6 rows, 5*10^6 nonzeros)
#   FORMATS        formats of the cuda run (default csr,coo,csb,gcsb,cci,dtans)
#   CPU_FORMATS    formats of the cpu run (default FORMATS and csr/copy: CSR with its vectors
#                  copied, beside CSR on PETSc's arrays in place)
#   REPS, KSP_ITS  the bench's -reps and -ksp_its (default 20 and 30)
#   CPU, CUDA      0 leaves out the cpu or the cuda backend's run (default 1 each)
#   BUDGET_S       seconds for each bench run before it is stopped (default 110)
#   BENCH_ARGS     more options for zs-petsc-bench (e.g. "-stat min -ksp_type bcgs")
set -euo pipefail

BUNDLE=${BUNDLE:-.petsc-bundle/zs-petsc-bundle.tar.xz}
OUT=${OUT:-$PWD/device-out}
MATRIX=${MATRIX:-gen:stencil2d:n=1000}
FORMATS=${FORMATS:-csr,coo,csb,gcsb,cci,dtans}
CPU_FORMATS=${CPU_FORMATS:-$FORMATS,csr/copy}
REPS=${REPS:-20}
KSP_ITS=${KSP_ITS:-30}
BUDGET_S=${BUDGET_S:-110}
mkdir -p "$OUT"
start=$SECONDS
log() { printf '[device-petsc %4ds] %s\n' $((SECONDS - start)) "$*" | tee -a "$OUT/device-petsc.log"; }

if [ ! -f "$BUNDLE" ]; then
  echo "device-petsc.sh: no $BUNDLE here: run bench/petsc/device-bundle.sh on the development machine and carry .petsc-bundle" >&2
  exit 2
fi

# Unpack outside the checkout (it is ~100 MB); xz, or Python's lzma where xz is missing.
B=${ZS_PETSC_BUNDLE_DIR:-/tmp/zs-petsc-bundle}
rm -rf "$B"
mkdir -p "$B"
if command -v xz >/dev/null; then
  xz -dc "$BUNDLE" | tar -C "$B" -xf -
else
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' "$BUNDLE" "$B"
fi
log "unpacked $BUNDLE into $B ($(head -n 1 "$B/MANIFEST"))"

# A fallback library is used only where this machine's loader knows no library of that soname
# (a 64-bit one). The cache's list is read whole first: grep -q stopping early would end
# ldconfig with SIGPIPE, which pipefail would count as "not found".
known=$(ldconfig -p)
for f in "$B"/fallback/*; do
  so=$(basename "$f")
  if ! grep -qF "	$so (libc6,x86-64" <<<"$known"; then
    ln -s "../fallback/$so" "$B/lib/$so"
    log "this machine has no $so: the bundle's is used"
  fi
done

# The bundle first; what was set before (the CUDA driver's folder, say) stays after it.
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# OpenMPI relocated to the bundle; one rank started without mpirun, with no orted to spawn.
export OPAL_PREFIX=$B/ompi OPAL_EXEC_PREFIX=$B/ompi OPAL_LIBDIR=$B/lib \
  OPAL_PKGLIBDIR=$B/ompi/lib/openmpi OPAL_PKGDATADIR=$B/ompi/share/openmpi \
  OPAL_SYSCONFDIR=$B/ompi/etc OPAL_DATADIR=$B/ompi/share OPAL_DATAROOTDIR=$B/ompi/share
export OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader \
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
# aij is one thread per rank: so is the cpu backend here, and BLAS.
export ZS_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# Where each library comes from: the bundle or this machine's base system, nothing missing.
{
  for f in "$B"/bin/* "${ZS_MODULE_DIR:+$ZS_MODULE_DIR/libzsparse-cuda.so}"; do
    [ -n "$f" ] && [ -e "$f" ] || continue
    echo "== $f"
    ldd "$f"
  done
} >"$OUT/ldd.txt" 2>&1
if grep -q 'not found' "$OUT/ldd.txt"; then
  log "libraries not found (ldd.txt):"
  grep -B200 'not found' "$OUT/ldd.txt" | grep -E '^==|not found'
  exit 1
fi
log "libraries: $(grep -c "=> $B/" "$OUT/ldd.txt") from the bundle, $(grep '=> /' "$OUT/ldd.txt" | grep -vc "=> $B/") from this machine (ldd.txt)"

bench=$B/bin/zs-petsc-bench
if [ -z "${ZS_MODULE_DIR:-}" ] && [ "${BUILD_MODULE:-0}" = 1 ] && [ "${CUDA:-1}" != 0 ]; then
  log "building the cuda module (bench/module-variant.sh petsc-dev)"
  bash bench/module-variant.sh petsc-dev >"$OUT/module-build.log" 2>&1
  ZS_MODULE_DIR=$PWD/.ab/petsc-dev
fi
if [ -n "${ZS_MODULE_DIR:-}" ]; then
  ZS_MODULE_DIR=$(cd "$ZS_MODULE_DIR" && pwd)
  export ZS_MODULE_DIR
fi
"$B/bin/zsparse" devices >"$OUT/devices.txt" 2>&1 || true
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
    >"$OUT/nvidia-smi.txt" 2>&1 || true
fi

# run NAME BACKEND FORMATS: one bench run; its table on stdout and in NAME.txt, its CSV in NAME.csv.
status=0
run() {
  local name=$1 backend=$2 formats=$3 rc=0
  log "bench $name: -matrix $MATRIX -mat_zsparse_backend $backend -formats $formats"
  read -r -a extra <<<"${BENCH_ARGS:-}"
  timeout --kill-after=10 "$BUDGET_S" "$bench" -matrix "$MATRIX" -formats "$formats" \
    -mat_zsparse_backend "$backend" -reps "$REPS" -ksp_its "$KSP_ITS" -csv "$OUT/$name.csv" \
    "${extra[@]}" >"$OUT/$name.txt" 2>&1 || rc=$?
  cat "$OUT/$name.txt"
  if [ "$rc" -ne 0 ]; then
    log "bench $name: exit $rc$( [ "$rc" -ge 124 ] && echo ' (stopped at BUDGET_S)')"
    status=1
  fi
}

if [ "${CUDA:-1}" = 0 ]; then
  log "cuda run left out (CUDA=0)"
elif [ -n "${ZS_MODULE_DIR:-}" ] && [ -f "$ZS_MODULE_DIR/libzsparse-cuda.so" ]; then
  run petsc-cuda cuda "$FORMATS"
else
  log "no cuda run: ZS_MODULE_DIR names no folder with libzsparse-cuda.so (carry one, or BUILD_MODULE=1)"
  status=1
fi
[ "${CPU:-1}" = 0 ] || run petsc-cpu cpu "$CPU_FORMATS"
log "done: $(ls "$OUT" | tr '\n' ' ')"
exit "$status"
