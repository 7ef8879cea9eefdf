// layout_cpp.cpp — the formats' typed layouts compiled as strict C++17 (as the GPU modules include
// them), each parser exposed to test_layout.c, which compares its result with the C one.
#include "formats/cci/cci_layout.h"
#include "formats/coo/coo_layout.h"
#include "formats/csb/csb_layout.h"
#include "formats/csr/csr_layout.h"
#include "formats/dtans/dtans_layout.h"
#include "formats/format_list.h"
#include "formats/sell/sell_layout.h"

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
