/* through_file.h — test helper: an encoded blob saved to a .zsm file and loaded again, as a
 * program that reads the file gets it (zs_encoded_load validates what it reads). */
#ifndef ZS_TEST_THROUGH_FILE_H
#define ZS_TEST_THROUGH_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/common/check.h"
#include "tests/common/temp_name.h"
#include "zsparse.h"

/* E saved to a new file "$TMPDIR/<stem>-XXXXXX" (/tmp without TMPDIR), loaded again, and the
 * file removed: the loaded blob (the caller destroys it), or NULL after a line on stderr and one
 * more in check_failures when a step fails. */
static inline zs_encoded *zs_test_through_file(const zs_encoded *E, const char *stem) {
  char path[4096];
  zs_test_temp_name(path, sizeof path, stem);
  const int fd = mkstemp(path);
  if (fd < 0) {
    perror(path);
    check_failures++;
    return NULL;
  }
  close(fd);
  zs_encoded *L = NULL;
  zs_status s = zs_encoded_save(E, path);
  if (s == ZS_OK) s = zs_encoded_load(&L, path);
  if (s != ZS_OK) {
    fprintf(stderr, "%s: save and load again: %s (%s)\n", path, zs_status_name(s), zs_last_error());
    check_failures++;
  }
  remove(path);
  return L;
}

#endif
