/* format_list.h — every format, written once. Ids, names, the library's format table, the
 * backends' kernel tables, the command line's format list and (read by meson.build) the folders
 * built, the conformance formats and the fuzz targets are all derived from these lines
 * (docs/architecture.md, "Adding a format"). Plain preprocessor text: C, C++ and CUDA include it.
 *
 * X(ID, name, folder, summary): ZS_FORMAT_<ID> in zsparse.h (its number is stored in .zsm files
 * and never changes), the name users type, formats/<folder>/ with its sources, and one line for
 * the docs. A sparse format defines `zsi_format_<name>` (its encode, validate, decode, stats) in
 * its folder, and each host backend one kernel table `zsi_<backend>_<name>`. */
#ifndef ZS_FORMAT_LIST_H
#define ZS_FORMAT_LIST_H

/* clang-format off */
/* Sparse matrix formats: zs_encode, zs_decode, .zsm containers, operators on every backend. */
#define ZSI_FORMAT_LIST(X)                                                                   \
  X(CSR, csr, csr, "compressed sparse rows: the baseline and the oracle's input")          \
  X(COO, coo, coo, "coordinates, row-major: the second baseline")                          \
  X(CSB, csb, csb, "compressed sparse blocks, Morton order inside a block")               \
  X(GCSB, gcsb, csb, "CSB with blocks grouped and interleaved for the GPU")               \
  X(CCI, cci, cci, "compressed column indices: variable-length deltas with opcodes")      \
  X(DTANS, dtans, dtans, "CSR-dtANS: entropy-coded columns and values, decoded in the product") \
  X(SELL, sell, sell, "SELL-C-sigma: slices of c rows, column-major, padded to the longest")

/* Formats of other objects, named like the sparse ones but coded through their own API: MAT-VANS
 * (dense int8 layers, zs_vans_*). */
#define ZSI_LAYER_FORMAT_LIST(X)                                                             \
  X(VANS, vans, vans, "MAT-VANS: ANS-coded int8 layers of a dense network")
/* clang-format on */

/* Names as one string literal, each after a space: " csr coo ... dtans" (the sparse formats),
 * and with the layer formats after them. */
#define ZSI_FORMAT_NAME_SP(ID, name, folder, summary) " " #name
#define ZSI_SPARSE_FORMAT_NAMES ZSI_FORMAT_LIST(ZSI_FORMAT_NAME_SP)
#define ZSI_FORMAT_NAMES ZSI_SPARSE_FORMAT_NAMES ZSI_LAYER_FORMAT_LIST(ZSI_FORMAT_NAME_SP)

#endif
