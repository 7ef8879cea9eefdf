/* layout_cpp.h — the C++17 side of test_layout.c (layout_cpp.cpp). */
#ifndef ZS_TEST_LAYOUT_CPP_H
#define ZS_TEST_LAYOUT_CPP_H

#include <stddef.h>
#include <stdint.h>

#include "zsparse_backend.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The format's layout parser run from C++: `out` is the format's layout struct of `size` bytes.
 * ZS_ERR_UNSUPPORTED for a format without a layout. */
zs_status layout_cpp_parse(const zsb_encoded_view *v, void *out, size_t size, char *why,
                           size_t why_len);
/* SELL's shape of rows with offsets ptr (formats/sell/sell_shape.h) from C++: the window order
 * (order, rows) and each slice's width (widths, ceil(rows / c)). 0 when out of memory. */
int layout_cpp_sell_shape(const int64_t *ptr, int64_t rows, int64_t sigma, int64_t c,
                          int32_t *order, int64_t *widths);
#ifdef __cplusplus
}
#endif
#endif
