/* each_value_type.h — instantiates a kernel template once per value type (f32, then f64).
 *
 *   #define ZSI_TEMPLATE "backends/cpu/cpu_csb_tmpl.inc"
 *   #include "backends/each_value_type.h"
 *
 * The template sees VT (float or double) and SFX(name) (name_f32 or name_f64); a file may define
 * its own macros in terms of SFX (cpu_dtans.c's VSLOT) before it. Every macro this file defines,
 * ZSI_TEMPLATE included, is undefined at its end, so the next template starts clean. No include
 * guard: it is meant to be included once per template. */
#ifndef ZSI_TEMPLATE
#error "define ZSI_TEMPLATE (the template's path) before including each_value_type.h"
#endif

#define VT float
#define SFX(name) name##_f32
#include ZSI_TEMPLATE
#undef VT
#undef SFX

#define VT double
#define SFX(name) name##_f64
#include ZSI_TEMPLATE
#undef VT
#undef SFX

#undef ZSI_TEMPLATE
