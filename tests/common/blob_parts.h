/* blob_parts.h — test helpers: an encoded blob's parameters and arrays found by name, for tests
 * that read what the encoder chose or damage a blob on purpose. They read the blob's own fields,
 * not the library's accessors. */
#ifndef ZS_TEST_BLOB_PARTS_H
#define ZS_TEST_BLOB_PARTS_H

#include <stdint.h>
#include <string.h>

#include "core/zs_internal.h"

/* E's parameter `name`, writable (a test damages it and puts it back), or NULL. */
static inline zsi_param *zs_test_param_ref(zs_encoded *E, const char *name) {
  for (int i = 0; i < E->n_params; i++)
    if (strcmp(E->params[i].name, name) == 0) return &E->params[i];
  return NULL;
}

/* The value of E's parameter `name`, or -1 where E has none of that name. */
static inline int64_t zs_test_param(const zs_encoded *E, const char *name) {
  for (int i = 0; i < E->n_params; i++)
    if (strcmp(E->params[i].name, name) == 0) return E->params[i].value;
  return -1;
}

/* Each parameter `name` of E set to v; nothing where E has none of that name. */
static inline void zs_test_set_param(zs_encoded *E, const char *name, int64_t v) {
  for (int i = 0; i < E->n_params; i++)
    if (strcmp(E->params[i].name, name) == 0) E->params[i].value = v;
}

/* E's array `name`, writable (a test damages it on purpose), or NULL. */
static inline zsi_array *zs_test_array(zs_encoded *E, const char *name) {
  return (zsi_array *)zsi_encoded_array(E, name);
}

/* The bytes of all of E's arrays: what the blob's size is compared by. */
static inline uint64_t zs_test_array_bytes(const zs_encoded *E) {
  uint64_t b = 0;
  for (int i = 0; i < E->n_arrays; i++) b += E->arrays[i].count * E->arrays[i].elem_size;
  return b;
}

#endif
