// header_cpp.cpp — zsparse.h and zsparse_backend.h compiled alone as strict C++, then exercised.
#include "zsparse.h"
#include "zsparse_backend.h"

#include <cstdio>
#include <cstring>
#include <string>

int main() {
  int failures = 0;
  // extern "C" must hold: these calls link against the C library only if names are unmangled.
  const std::string want = std::to_string(ZS_VERSION_MAJOR) + "." +
                           std::to_string(ZS_VERSION_MINOR) + "." +
                           std::to_string(ZS_VERSION_PATCH);
  if (want != zs_version()) {
    std::fprintf(stderr, "FAIL: zs_version() = %s, header says %s\n", zs_version(), want.c_str());
    failures++;
  }
  if (std::strcmp(zs_status_name(ZS_ERR_CORRUPT), "ZS_ERR_CORRUPT") != 0) {
    std::fprintf(stderr, "FAIL: zs_status_name\n");
    failures++;
  }
  zs_format f = ZS_FORMAT_CSR;
  if (zs_format_from_name("coo", &f) != ZS_OK || f != ZS_FORMAT_COO) {
    std::fprintf(stderr, "FAIL: zs_format_from_name\n");
    failures++;
  }
  zs_context *ctx = nullptr;
  zs_context_destroy(&ctx);

  // The header's inline helpers must compile as C++ (no implicit void* conversions etc.).
  const float vals[1] = {3.0f};
  const zsb_array arrays[1] = {{"col_idx", vals, 1, 4}};
  zsb_encoded_view view{};
  view.n_arrays = 1;
  view.arrays = arrays;
  if (zsb_find_array(&view, "col_idx") != &arrays[0] || zsb_find_param(&view, "x", 7) != 7) {
    std::fprintf(stderr, "FAIL: zsb_find_* in C++\n");
    failures++;
  }
  if (failures) return 1;
  std::printf("header C++ test: ok (zsparse %s)\n", zs_version());
  return 0;
}
