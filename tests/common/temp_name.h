/* temp_name.h — test helper: where a test makes its temporary files. $TMPDIR when set (a
 * build machine may keep /tmp small or shared), else /tmp. */
#ifndef ZS_TEST_TEMP_NAME_H
#define ZS_TEST_TEMP_NAME_H

#include <stdio.h>
#include <stdlib.h>

/* "<dir>/<stem>-XXXXXX" into buf, a template for mkstemp or mkdtemp. */
static inline void zs_test_temp_name(char *buf, size_t len, const char *stem) {
  const char *dir = getenv("TMPDIR");
  snprintf(buf, len, "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp", stem);
}

#endif
