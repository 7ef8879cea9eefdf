// layout_cpp.cpp — the formats' typed layouts compiled as strict C++17 (as the GPU modules include
// them), each parser exposed to test_layout.c, which compares its result with the C one; SELL's
// shape (sell_shape.h, which the GPU modules' Aᵀ also lays out by) the same way.
#include "formats/cci/cci_layout.h"
#include "formats/coo/coo_layout.h"
#include "formats/csb/csb_layout.h"
#include "formats/csr/csr_layout.h"
#include "formats/dtans/dtans_layout.h"
#include "formats/format_list.h"
#include "formats/sell/sell_layout.h"
#include "formats/sell/sell_shape.h"

#include <cstdlib>

#include "layout_cpp.h"

extern "C" zs_status layout_cpp_parse(const zsb_encoded_view *v, void *out, size_t size, char *why,
                                      size_t why_len) {
  switch (v->format) {
#define CASE(ID, name, folder, summary)                          \
  case ZS_FORMAT_##ID:                                           \
    if (size != sizeof(folder##_layout)) return ZS_ERR_INTERNAL; \
    return folder##_layout_parse(v, static_cast<folder##_layout *>(out), why, why_len);
    ZSI_FORMAT_LIST(CASE)
  default: return ZS_ERR_UNSUPPORTED;
  }
}

extern "C" int layout_cpp_sell_shape(const int64_t *ptr, int64_t rows, int64_t sigma, int64_t c,
                                     int32_t *order, int64_t *widths) {
  const int64_t n = sigma < rows ? sigma : rows;
  uint64_t *key = static_cast<uint64_t *>(std::malloc(2 * static_cast<size_t>(n ? n : 1) * 8));
  if (!key) return 0;
  sell_sort_windows(ptr, rows, sigma, order, key, key + (n ? n : 1));
  for (int64_t s = 0; s < (rows + c - 1) / c; s++)
    widths[s] = sell_slice_width(ptr, order, rows, c, s);
  std::free(key);
  return 1;
}
