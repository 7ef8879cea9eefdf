/* test_safe_output.c — every writer (Matrix Market, gzip Matrix Market, .zsm, MAT-VANS) goes
 * through the safe output: modes kept, links handled, special files refused, terminals and FIFOs
 * written in place, nothing left behind on any path. */
#define _XOPEN_SOURCE 700 /* posix_openpt, ptsname */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mtx_test_util.h"
#include "zsparse_vans.h"

enum { W_MTX, W_GZ, W_ZSM, W_VANS, N_WRITERS };
static const char *const suffix[N_WRITERS] = {".mtx", ".mtx.gz", ".zsm", ".vans"};

static zs_matrix *g_A;
static zs_encoded *g_E;
static zs_vans *g_V;

static zs_status write_with(int w, const char *path) {
  switch (w) {
  case W_MTX:
  case W_GZ: return zs_matrix_write(g_A, path);
  case W_ZSM: return zs_encoded_save(g_E, path);
  default: return zs_vans_write(g_V, path);
  }
}

/* The file at path reads back as what writer w writes. */
static int reads_back(int w, const char *path) {
  if (w == W_VANS) {
    zs_vans *V = NULL;
    zs_status s = zs_vans_read(&V, path);
    zs_vans_destroy(&V);
    return s == ZS_OK;
  }
  if (w == W_ZSM) {
    zs_encoded *E = NULL;
    zs_status s = zs_encoded_load(&E, path);
    zs_encoded_destroy(&E);
    return s == ZS_OK;
  }
  zs_matrix *B = NULL;
  zs_status s = zs_matrix_read(&B, path, ZS_F64, 0, NULL, 0);
  const int ok = s == ZS_OK && zs_matrix_nnz(B) == zs_matrix_nnz(g_A);
  zs_matrix_destroy(&B);
  return ok;
}

/* Entries of dir other than the names given (NULL-terminated); a temporary left behind shows. */
static int stray_entries(const char *dir, const char *const *keep) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    int kept = 0;
    for (const char *const *k = keep; *k; k++) kept |= strcmp(e->d_name, *k) == 0;
    if (!kept) fprintf(stderr, "  stray: %s/%s\n", dir, e->d_name), n++;
  }
  if (d) closedir(d);
  return n;
}

static void fresh_dir(const char *base, int w, const char *what, char *dir, size_t n) {
  snprintf(dir, n, "%s/%s%d", base, what, w);
  if (mkdir(dir, 0755) != 0) perror(dir), exit(1);
}

static void check_refused(int w, const char *path, zs_status want, const char *word) {
  zs_status s = write_with(w, path);
  CHECK(s == want && strstr(zs_last_error(), word), "%s: %s: got %s '%s', wanted %s '%s'",
        suffix[w], path, zs_status_name(s), zs_last_error(), zs_status_name(want), word);
}

static void modes_and_links(const char *base, int w) {
  char dir[4200], out[4300], name[64], victim[4300], tmp[4400], target[4300], link[4300];
  fresh_dir(base, w, "modes", dir, sizeof dir);
  snprintf(name, sizeof name, "out%s", suffix[w]);
  snprintf(out, sizeof out, "%s/%s", dir, name);
  struct stat st;

  /* A new file gets 0666 & ~umask, like any file a program creates. */
  const mode_t old_mask = umask(027);
  zs_status s = write_with(w, out);
  CHECK(s == ZS_OK && stat(out, &st) == 0 && (st.st_mode & 0777) == 0640 && reads_back(w, out),
        "%s: new file: %s, mode %o", suffix[w], zs_last_error(), (unsigned)(st.st_mode & 0777));
  umask(old_mask);

  /* Replacing keeps the existing mode (600 stays 600, not umask's 644). */
  chmod(out, 0600);
  s = write_with(w, out);
  CHECK(s == ZS_OK && stat(out, &st) == 0 && (st.st_mode & 0777) == 0600, "%s: mode %o", suffix[w],
        (unsigned)(st.st_mode & 0777));

  /* So does the owner, where the system allows it (as root here). */
  if (geteuid() == 0 && chown(out, 4242, 4243) == 0) {
    s = write_with(w, out);
    CHECK(s == ZS_OK && stat(out, &st) == 0 && st.st_uid == 4242 && st.st_gid == 4243 &&
              (st.st_mode & 0777) == 0600,
          "%s: owner %d:%d mode %o", suffix[w], (int)st.st_uid, (int)st.st_gid,
          (unsigned)(st.st_mode & 0777));
  }

  /* A symlink planted at the old fixed temporary name is never followed. */
  snprintf(victim, sizeof victim, "%s/victim", dir);
  write_bytes(victim, "precious\n", 9);
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  CHECK(symlink(victim, tmp) == 0, "symlink: %s", strerror(errno));
  s = write_with(w, out);
  CHECK(s == ZS_OK && stat(victim, &st) == 0 && st.st_size == 9, "%s: planted link followed: %s",
        suffix[w], zs_last_error());
  unlink(tmp);

  /* A symlinked output: the file it names is replaced, the link stays a link. */
  snprintf(target, sizeof target, "%s/target%s", dir, suffix[w]);
  snprintf(link, sizeof link, "%s/link%s", dir, suffix[w]);
  write_bytes(target, "old\n", 4);
  chmod(target, 0640);
  CHECK(symlink(target + strlen(dir) + 1, link) == 0, "symlink: %s", strerror(errno));
  s = write_with(w, link);
  struct stat lst;
  CHECK(s == ZS_OK && lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode) && stat(target, &st) == 0 &&
            (st.st_mode & 0777) == 0640 && reads_back(w, target),
        "%s: symlinked output: %s", suffix[w], zs_last_error());

  /* A dangling link is refused (its target's directory is not ours to guess). */
  char dangling[4300];
  snprintf(dangling, sizeof dangling, "%s/dangling%s", dir, suffix[w]);
  CHECK(symlink("nowhere/x", dangling) == 0, "symlink: %s", strerror(errno));
  check_refused(w, dangling, ZS_ERR_IO, "missing file");

  char tname[64], lname[64], dname[64];
  snprintf(tname, sizeof tname, "target%s", suffix[w]);
  snprintf(lname, sizeof lname, "link%s", suffix[w]);
  snprintf(dname, sizeof dname, "dangling%s", suffix[w]);
  const char *keep[] = {name, "victim", tname, lname, dname, NULL};
  CHECK(stray_entries(dir, keep) == 0, "%s: temporaries left behind", suffix[w]);
}

static void special_outputs(const char *base, int w) {
  char dir[4200], path[4300];
  fresh_dir(base, w, "special", dir, sizeof dir);
  check_refused(w, dir, ZS_ERR_IO, "directory");
  check_refused(w, "", ZS_ERR_INVALID_ARGUMENT, "empty");
  snprintf(path, sizeof path, "%s/no/such/dir/x%s", dir, suffix[w]);
  check_refused(w, path, ZS_ERR_IO, path);

  /* A character device (the numbers of /dev/null) is refused, never replaced by a file. */
  snprintf(path, sizeof path, "%s/null", dir);
  if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0) {
    check_refused(w, path, ZS_ERR_IO, "character device");
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISCHR(st.st_mode), "%s: the device was replaced", suffix[w]);
    unlink(path);
  } else {
    printf("note: mknod not permitted (%s): the device case is skipped\n", strerror(errno));
  }

  /* A FIFO is written in place (a reader is open first, so the open does not wait). */
  snprintf(path, sizeof path, "%s/fifo", dir);
  CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
  const int rd = open(path, O_RDONLY | O_NONBLOCK);
  zs_status s = write_with(w, path);
  char buf[256] = {0};
  const ssize_t got = rd >= 0 ? read(rd, buf, sizeof buf - 1) : -1;
  CHECK(s == ZS_OK && got > 0, "%s: fifo: %s", suffix[w], zs_last_error());
  if (w == W_MTX) CHECK(strncmp(buf, "%%MatrixMarket", 14) == 0, "fifo got '%.20s'", buf);
  if (rd >= 0) close(rd);
  struct stat st;
  CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode), "%s: the FIFO was replaced", suffix[w]);
  unlink(path);

  /* A write that fails midway (file size limit) leaves the old file and no temporary. */
  snprintf(path, sizeof path, "%s/old%s", dir, suffix[w]);
  write_bytes(path, "old\n", 4);
  struct rlimit saved, small = {20, 20};
  getrlimit(RLIMIT_FSIZE, &saved);
  small.rlim_max = saved.rlim_max;
  signal(SIGXFSZ, SIG_IGN);
  setrlimit(RLIMIT_FSIZE, &small);
  s = write_with(w, path);
  setrlimit(RLIMIT_FSIZE, &saved);
  CHECK(s == ZS_ERR_IO && stat(path, &st) == 0 && st.st_size == 4, "%s: failed write: %s %s",
        suffix[w], zs_status_name(s), zs_last_error());
  char oname[64];
  snprintf(oname, sizeof oname, "old%s", suffix[w]);
  const char *keep[] = {oname, NULL};
  CHECK(stray_entries(dir, keep) == 0, "%s: temporaries left behind", suffix[w]);
}

/* A terminal takes text in place; binary outputs refuse it. */
static void terminal(int w) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) || unlockpt(master) || !ptsname(master)) {
    printf("note: no pseudo-terminal (%s): the terminal case is skipped\n", strerror(errno));
    return;
  }
  char slave[256];
  snprintf(slave, sizeof slave, "%s", ptsname(master));
  const int keep_open = open(slave, O_RDWR | O_NOCTTY); /* so the master sees the bytes */
  if (w == W_ZSM || w == W_VANS) {
    check_refused(w, slave, ZS_ERR_IO, "terminal");
  } else if (w == W_MTX) {
    zs_status s = write_with(w, slave);
    char buf[64] = {0};
    const int fl = fcntl(master, F_GETFL);
    fcntl(master, F_SETFL, fl | O_NONBLOCK);
    const ssize_t got = read(master, buf, sizeof buf - 1);
    CHECK(s == ZS_OK && got > 0 && strstr(buf, "MatrixMarket"), "terminal: %s, read '%.20s'",
          zs_last_error(), buf);
  }
  if (keep_open >= 0) close(keep_open);
  close(master);
}

int main(void) {
  const int64_t ri[4] = {0, 1, 2, 2}, ci[4] = {0, 2, 1, 2};
  const double v[4] = {1.5, -2, 0.25, 4};
  if (zs_matrix_from_coo(&g_A, 3, 3, 4, ri, ci, v, ZS_F64, 0) != ZS_OK ||
      zs_encode(&g_E, g_A, ZS_FORMAT_CSR, NULL) != ZS_OK ||
      zs_vans_generate(&g_V, "n=32,k=2,seed=1", 0) != ZS_OK) {
    fprintf(stderr, "setup: %s\n", zs_last_error());
    return 1;
  }
  const char *base = tmpdir_make();
  /* A container holds finite values only: saving a NaN is refused, naming the element. */
  {
    const double nan_v[4] = {1.5, -2, NAN, 4};
    zs_matrix *N = NULL;
    zs_encoded *E = NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/nan.zsm", base);
    zs_status s = zs_matrix_from_coo(&N, 3, 3, 4, ri, ci, nan_v, ZS_F64, ZS_MATRIX_ALLOW_NONFINITE);
    if (s == ZS_OK) s = zs_encode(&E, N, ZS_FORMAT_CSR, NULL);
    if (s == ZS_OK) s = zs_encoded_save(E, path);
    CHECK(s == ZS_ERR_OUT_OF_RANGE && strstr(zs_last_error(), "'values' element 2") &&
              access(path, F_OK) != 0,
          "saving a NaN: %s %s", zs_status_name(s), zs_last_error());
    zs_encoded_destroy(&E);
    zs_matrix_destroy(&N);
  }
  for (int w = 0; w < N_WRITERS; w++) {
    modes_and_links(base, w);
    special_outputs(base, w);
    terminal(w);
  }
  tmpdir_remove(base);
  zs_matrix_destroy(&g_A);
  zs_encoded_destroy(&g_E);
  zs_vans_destroy(&g_V);
  printf("%d writers checked, %d failures\n", N_WRITERS, g_failures);
  return g_failures ? 1 : 0;
}
