/* open_regular.c — see open_regular.h. */
#include "core/io/open_regular.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

zs_status zsi_open_regular(const char *path, const char *mode, FILE **out, uint64_t *size) {
  *out = NULL;
  /* non-blocking, so that opening a FIFO does not wait for a writer before it can be refused */
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return zsi_error(ZS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return zsi_error(ZS_ERR_IO, "%s: cannot stat: %s", path, strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return zsi_error(ZS_ERR_IO, "%s: %s", path,
                     S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
  }
  const int flags = fcntl(fd, F_GETFL);
  FILE *f = NULL;
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, mode))) {
    const int err = errno;
    close(fd);
    return zsi_error(ZS_ERR_IO, "%s: cannot open: %s", path, strerror(err));
  }
  *out = f;
  if (size) *size = (uint64_t)st.st_size;
  return ZS_OK;
}
