// layout_cpp.cpp — the formats' typed layouts compiled as strict C++17 (as the GPU modules include
// them), each parser exposed to test_layout.c, which compares its result with the C one.
#include "formats/dtans/dtans_layout.h"

#include "layout_cpp.h"

extern "C" zs_status layout_cpp_parse(const zsb_encoded_view *v, void *out, size_t size, char *why,
                                      size_t why_len) {
  switch (v->format) {
  case ZS_FORMAT_DTANS:
    if (size != sizeof(dtans_layout)) return ZS_ERR_INTERNAL;
    return dtans_layout_parse(v, static_cast<dtans_layout *>(out), why, why_len);
  default: return ZS_ERR_UNSUPPORTED;
  }
}
