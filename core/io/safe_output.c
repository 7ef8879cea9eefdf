/* safe_output.c — the one way zsparse writes an output file (rules in docs/bad-input.md). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "core/io/safe_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Names the temporary keeps of the target's base name: the suffix must fit in NAME_MAX. */
#define BASE_KEEP 200

static zs_status refuse(const char *path, const char *why) {
  return zsi_error(ZS_ERR_IO, "%s: cannot write the output: %s", path, why);
}

static const char *kind_of(mode_t m) {
  return S_ISDIR(m)    ? "it is a directory"
         : S_ISCHR(m)  ? "it is a character device, not a regular file"
         : S_ISBLK(m)  ? "it is a block device, not a regular file"
         : S_ISSOCK(m) ? "it is a socket, not a regular file"
                       : "it is not a regular file";
}

/* 64 bits that differ between processes, threads and calls (not secret: O_EXCL makes a
 * guessed name harmless, it only costs a retry). */
static uint64_t unique_bits(void) {
  static atomic_uint_fast64_t counter;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t z = (uint64_t)getpid() << 40 ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
               (uint64_t)atomic_fetch_add(&counter, 1) * UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Create "<dir>/.<base>.<12 hex>.tmp" with O_EXCL|O_NOFOLLOW: a name that exists, a planted
 * link included, is never opened; mode 0666 lets the umask decide, as for any new file. */
static zs_status create_temporary(zsi_output *o) {
  const char *slash = strrchr(o->target, '/');
  const size_t dir_len = slash ? (size_t)(slash - o->target) + 1 : 0;
  const char *base = o->target + dir_len;
  const size_t base_len = strlen(base) < BASE_KEEP ? strlen(base) : BASE_KEEP;
  o->tmp = malloc(dir_len + base_len + 32);
  if (!o->tmp)
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory naming a temporary", o->path);
  for (int attempt = 0; attempt < 64; attempt++) {
    snprintf(o->tmp, dir_len + base_len + 32, "%.*s.%.*s.%012llx.tmp", (int)dir_len, o->target,
             (int)base_len, base, (unsigned long long)(unique_bits() & UINT64_C(0xffffffffffff)));
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (o->fd >= 0) return ZS_OK;
    if (errno != EEXIST) break;
  }
  const int err = errno;
  zs_status s = zsi_error(ZS_ERR_IO, "%s: cannot create a temporary file in '%.*s': %s", o->path,
                          dir_len ? (int)dir_len : 1, dir_len ? o->target : ".", strerror(err));
  free(o->tmp), o->tmp = NULL;
  return s;
}

/* Write straight into an existing pipe, FIFO or terminal (nothing to replace). */
static zs_status open_direct(zsi_output *o, const char *path, unsigned flags) {
  o->direct = 1;
  o->fd = strcmp(path, "-") == 0 ? dup(STDOUT_FILENO) : open(path, O_WRONLY | O_CLOEXEC);
  if (o->fd < 0) return refuse(path, strerror(errno));
  if ((flags & ZSI_OUTPUT_BINARY) && isatty(o->fd)) {
    close(o->fd), o->fd = -1;
    return refuse(path, "refusing to write binary data to a terminal");
  }
  return ZS_OK;
}

zs_status zsi_output_open(zsi_output *o, const char *path, unsigned flags) {
  *o = (zsi_output){.path = path, .fd = -1};
  if (!path || !*path)
    return zsi_error(ZS_ERR_INVALID_ARGUMENT, "cannot write the output: its name is empty");
  if (strcmp(path, "-") == 0) return open_direct(o, path, flags);
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISFIFO(st.st_mode)) return open_direct(o, path, flags);
    if (S_ISCHR(st.st_mode)) {
      /* A terminal is written in place; any other device is refused, never replaced. */
      const int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
      const int tty = fd >= 0 && isatty(fd);
      if (fd >= 0) close(fd);
      if (tty) return open_direct(o, path, flags);
    }
    if (!S_ISREG(st.st_mode)) return refuse(path, kind_of(st.st_mode));
    o->keep_mode = 1, o->mode = st.st_mode & 07777, o->uid = st.st_uid, o->gid = st.st_gid;
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
      /* Replace the file the link names, keeping the link (as editors do). */
      o->target = realpath(path, NULL);
      if (!o->target) return refuse(path, strerror(errno));
    }
  } else if (errno != ENOENT) {
    return refuse(path, strerror(errno));
  } else {
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
      return refuse(path, "it is a symbolic link to a missing file");
  }
  if (!o->target && !(o->target = strdup(path)))
    return zsi_error(ZS_ERR_OUT_OF_MEMORY, "%s: out of memory naming the output", path);
  zs_status s = create_temporary(o);
  if (s != ZS_OK) free(o->target), o->target = NULL;
  return s;
}

FILE *zsi_output_stdio(zsi_output *o) {
  const int fd = dup(o->fd);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!f && fd >= 0) close(fd);
  return f;
}

zs_status zsi_output_write_all(const char *path, unsigned flags, const void *data, size_t n) {
  zsi_output o;
  zs_status s = zsi_output_open(&o, path, flags);
  if (s != ZS_OK) return s;
  FILE *f = zsi_output_stdio(&o);
  errno = 0;
  int ok = f && fwrite(data, 1, n, f) == n;
  int err = errno;
  if (f && fclose(f) != 0 && ok) ok = 0, err = errno;
  if (!ok) {
    zsi_output_abort(&o);
    return zsi_error(ZS_ERR_IO, "%s: writing the output failed: %s", path,
                     strerror(err ? err : EIO));
  }
  return zsi_output_commit(&o);
}

/* Make the rename itself durable; a failure here loses nothing already written, so it is
 * ignored (some file systems refuse fsync on a directory). */
static void sync_directory(const char *target) {
  const char *slash = strrchr(target, '/');
  char *dir = slash ? strndup(target, (size_t)(slash - target) + 1) : strdup(".");
  const int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (fd >= 0) (void)fsync(fd), close(fd);
  free(dir);
}

zs_status zsi_output_commit(zsi_output *o) {
  zs_status s = ZS_OK;
  if (o->direct) {
    if (close(o->fd) != 0) s = refuse(o->path, strerror(errno));
    o->fd = -1;
    return s;
  }
  const char *step = "fsync";
  int ok = fsync(o->fd) == 0;
  if (ok && o->keep_mode) {
    /* The owner carries over where the system lets us (as root, or a group we are in); the
     * mode is set after, since a change of owner may clear set-id bits. */
    if (fchown(o->fd, o->uid, o->gid) != 0 && fchown(o->fd, (uid_t)-1, o->gid) != 0) {
      /* not ours to give: the replacement keeps our owner */
    }
    step = "keeping the mode", ok = fchmod(o->fd, o->mode) == 0;
  }
  int err = ok ? 0 : errno;
  if (close(o->fd) != 0 && ok) step = "close", ok = 0, err = errno;
  o->fd = -1;
  if (ok && rename(o->tmp, o->target) != 0) step = "rename", ok = 0, err = errno;
  if (!ok) {
    s = zsi_error(ZS_ERR_IO, "%s: writing the output failed at %s of %s: %s", o->path, step, o->tmp,
                  strerror(err));
    zsi_output_abort(o);
    return s;
  }
  sync_directory(o->target);
  free(o->tmp), o->tmp = NULL;
  free(o->target), o->target = NULL;
  return ZS_OK;
}

void zsi_output_abort(zsi_output *o) {
  if (o->fd >= 0) close(o->fd);
  o->fd = -1;
  if (o->tmp) unlink(o->tmp);
  free(o->tmp), o->tmp = NULL;
  free(o->target), o->target = NULL;
}
