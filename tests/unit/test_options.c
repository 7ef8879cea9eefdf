/* test_options.c — the "key=value,..." option parser used by encoders and backends. */
#include <string.h>

#include "check.h"
#include "core/zs_internal.h"

int main(void) {
  int64_t v = 0;
  int found = 0;
  CHECK_STATUS(zsi_option_int("a=3,bb=0x10,c=-2", "bb", 0, 100, &v, &found), ZS_OK);
  CHECK(found && v == 16);
  CHECK_STATUS(zsi_option_int("a=3,bb=0x10", "b", 0, 100, &v, &found), ZS_OK);
  CHECK(!found);
  CHECK_STATUS(zsi_option_int("a=3,c=-2", "c", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "outside") != NULL);
  CHECK_STATUS(zsi_option_int("a=3x", "a", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zsi_option_int("a=", "a", 0, 100, &v, &found), ZS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(zsi_option_int(NULL, "a", 0, 100, &v, &found), ZS_OK);
  CHECK(!found);
  char buf[8];
  CHECK_STATUS(zsi_option_str("mode=atomic,x=1", "mode", buf, sizeof buf, &found), ZS_OK);
  CHECK(found && strcmp(buf, "atomic") == 0);
  CHECK_STATUS(zsi_option_str("mode=verylongvalue", "mode", buf, sizeof buf, &found),
               ZS_ERR_INVALID_ARGUMENT);
  static const char *const known[] = {"a", "mode", NULL};
  CHECK_STATUS(zsi_option_check("a=1,mode=x", known, "t"), ZS_OK);
  CHECK_STATUS(zsi_option_check("a=1,mod=x", known, "t"), ZS_ERR_INVALID_ARGUMENT);
  CHECK(strstr(zs_last_error(), "'mod'") != NULL);
  CHECK_STATUS(zsi_option_check("", known, "t"), ZS_OK);
  CHECK_DONE();
}
