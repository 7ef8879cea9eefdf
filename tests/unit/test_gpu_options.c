/* test_gpu_options.c — the GPU CSR and SELL kernel options as the library checks and completes
 * them before a backend sees them, pairs that cannot meet refused: no device needed (the table
 * decides, not the module). */
#include <stdlib.h>
#include <string.h>

#include "core/runtime/runtime.h"
#include "tests/common/check.h"

/* The completed option string for backend/format, or NULL when refused. */
static char *complete(const char *backend, zs_format f, const char *user) {
  char *out = NULL;
  int stored = 0;
  return zsi_backend_options(backend, f, user, &out, &stored) == ZS_OK ? out : NULL;
}

static void accepts(const char *backend, zs_format f, const char *user, const char *want) {
  char *out = complete(backend, f, user);
  CHECK(out != NULL);
  if (out) CHECK(strstr(out, want) != NULL);
  free(out);
}

static void refuses(const char *backend, zs_format f, const char *user, const char *why) {
  char *out = NULL;
  int stored = 0;
  CHECK(zsi_backend_options(backend, f, user, &out, &stored) == ZS_ERR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK(strstr(zs_last_error(), why) != NULL);
  free(out);
}

int main(void) {
  /* defaults: every CSR kernel choice left to the operator */
  accepts("cuda", ZS_FORMAT_CSR, "", "block_nnz=auto");
  accepts("cuda", ZS_FORMAT_CSR, "", "experimental.reduce=auto");
  accepts("hip", ZS_FORMAT_CSR, "", "experimental.long_rows=auto");
  accepts("cuda", ZS_FORMAT_CSR, "", "experimental.evict_first=auto");
  accepts("cuda", ZS_FORMAT_SELL, "", "experimental.sell_unroll=auto");
  accepts("cuda", ZS_FORMAT_CSR, "", "kernel=auto");
  /* every block size and kernel choice */
  static const char *const sizes[] = {"256", "512", "1024", "2048"};
  for (int i = 0; i < 4; i++) {
    char opt[32];
    strcpy(opt, "block_nnz="), strcat(opt, sizes[i]);
    accepts("cuda", ZS_FORMAT_CSR, opt, opt);
  }
  accepts("cuda", ZS_FORMAT_CSR, "experimental.reduce=threads,experimental.long_rows=fused",
          "experimental.reduce=threads");
  accepts("cuda", ZS_FORMAT_CSR, "experimental.reduce=lanes,experimental.long_rows=kernel",
          "experimental.long_rows=kernel");
  accepts("hip", ZS_FORMAT_CSR, "experimental.evict_first=off", "experimental.evict_first=off");
  accepts("cuda", ZS_FORMAT_CSR, "kernel=split,block_nnz=512", "kernel=split");
  accepts("hip", ZS_FORMAT_CSR, "kernel=rows", "kernel=rows");
  /* the split kernel's staging choices */
  accepts("cuda", ZS_FORMAT_CSR, "", "experimental.split_stage=auto");
  accepts("cuda", ZS_FORMAT_CSR, "", "experimental.split_spans=auto");
  accepts("hip", ZS_FORMAT_CSR, "kernel=split,experimental.split_spans=wait",
          "experimental.split_spans=wait");
  static const char *const stages[] = {"plain", "vector", "early", "vector_early"};
  for (int i = 0; i < 4; i++) {
    char opt[64];
    strcpy(opt, "kernel=split,experimental.split_stage="), strcat(opt, stages[i]);
    accepts(i % 2 ? "hip" : "cuda", ZS_FORMAT_CSR, opt, strchr(opt, ',') + 1);
  }
  accepts("cuda", ZS_FORMAT_SELL, "experimental.evict_first=on,experimental.sell_unroll=8",
          "experimental.sell_unroll=8");
  /* SELL's walks and its deterministic SpMVT's Aᵀ */
  accepts("cuda", ZS_FORMAT_SELL, "", "experimental.sell_tail=auto");
  accepts("cuda", ZS_FORMAT_SELL, "", "experimental.sell_transpose=auto");
  accepts("cuda", ZS_FORMAT_SELL, "experimental.sell_unroll=16,experimental.sell_tail=batch",
          "experimental.sell_unroll=16");
  accepts("hip", ZS_FORMAT_SELL, "experimental.sell_tail=ahead,experimental.sell_threads=128",
          "experimental.sell_threads=128");
  accepts("cuda", ZS_FORMAT_SELL, "experimental.sell_transpose=sell",
          "experimental.sell_transpose=sell");
  accepts("cuda", ZS_FORMAT_SELL, "", "experimental.sell_lanes=auto");
  accepts("hip", ZS_FORMAT_SELL, "experimental.sell_lanes=4,experimental.sell_unroll=4",
          "experimental.sell_lanes=4");
  /* dtANS version 5's packed-row kernel choices */
  accepts("cuda", ZS_FORMAT_DTANS, "", "experimental.packed_unroll=auto");
  accepts("cuda", ZS_FORMAT_DTANS, "", "experimental.packed_split=auto");
  accepts("cuda", ZS_FORMAT_DTANS, "experimental.packed_unroll=4,experimental.packed_split=32",
          "experimental.packed_split=32");
  accepts("hip", ZS_FORMAT_DTANS, "experimental.packed_split=off", "experimental.packed_split=off");
  accepts("cuda", ZS_FORMAT_DTANS, "experimental.packed_dict=shfl",
          "experimental.packed_dict=shfl");
  /* CSR's options on SELL, no SELL-only option on CSR */
  char *sell = complete("cuda", ZS_FORMAT_SELL, "");
  CHECK(sell && !strstr(sell, "experimental.reduce") && !strstr(sell, "block_nnz"));
  free(sell);
  char *csr = complete("cuda", ZS_FORMAT_CSR, "");
  CHECK(csr && !strstr(csr, "sell_unroll"));
  free(csr);
  /* bad values, other formats, other backends */
  refuses("cuda", ZS_FORMAT_CSR, "block_nnz=4096", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "block_nnz=300", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.reduce=rows", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.long_rows=atomic", "is not one of");
  refuses("cuda", ZS_FORMAT_SELL, "experimental.sell_unroll=3", "is not one of");
  refuses("cuda", ZS_FORMAT_SELL, "experimental.sell_unroll=32", "is not one of");
  refuses("cuda", ZS_FORMAT_SELL, "experimental.sell_tail=split", "is not one of");
  refuses("cuda", ZS_FORMAT_SELL, "experimental.sell_lanes=8", "is not one of");
  refuses("cuda", ZS_FORMAT_SELL, "experimental.sell_threads=512", "is not one of");
  refuses("cuda", ZS_FORMAT_SELL, "experimental.sell_transpose=coo", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.sell_tail=batch", "does not apply to format");
  refuses("cpu", ZS_FORMAT_SELL, "experimental.sell_transpose=sell", "has no operator option");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.evict_first=yes", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "kernel=merge", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.split_stage=vector4", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.split_stage=pipelined", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.split_spans=atomic", "is not one of");
  refuses("cuda", ZS_FORMAT_COO, "experimental.split_stage=vector", "does not apply to format");
  refuses("cpu", ZS_FORMAT_CSR, "experimental.split_stage=early", "has no operator option");
  refuses("cuda", ZS_FORMAT_DTANS, "experimental.packed_unroll=3", "is not one of");
  refuses("cuda", ZS_FORMAT_DTANS, "experimental.packed_split=20", "is not one of");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.packed_unroll=2", "does not apply to format");
  refuses("cpu", ZS_FORMAT_DTANS, "experimental.packed_split=32", "has no operator option");
  refuses("cuda", ZS_FORMAT_COO, "kernel=split", "does not apply to format");
  refuses("cuda", ZS_FORMAT_SELL, "kernel=split", "does not apply to format");
  refuses("cpu", ZS_FORMAT_CSR, "kernel=split", "has no operator option");
  refuses("cuda", ZS_FORMAT_COO, "experimental.reduce=threads", "does not apply to format");
  refuses("cuda", ZS_FORMAT_SELL, "experimental.long_rows=fused", "does not apply to format");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.sell_unroll=2", "does not apply to format");
  refuses("cpu", ZS_FORMAT_CSR, "experimental.reduce=threads", "has no operator option");
  refuses("ref", ZS_FORMAT_SELL, "experimental.evict_first=on", "has no operator option");
  refuses("cuda", ZS_FORMAT_CSR, "block_nnz=512,block_nnz=1024", "block_nnz");
  /* options that cannot meet: the split kernel has no fused long rows (in either order; the
   * message names both); each alone, or with the other kernel, is taken */
  const char *both = "kernel=split and experimental.long_rows=fused";
  refuses("cuda", ZS_FORMAT_CSR, "kernel=split,experimental.long_rows=fused", both);
  refuses("hip", ZS_FORMAT_CSR, "experimental.long_rows=fused,block_nnz=512,kernel=split", both);
  accepts("cuda", ZS_FORMAT_CSR, "kernel=split,experimental.long_rows=kernel", "kernel=split");
  accepts("cuda", ZS_FORMAT_CSR, "kernel=split,experimental.long_rows=auto", "kernel=split");
  accepts("cuda", ZS_FORMAT_CSR, "kernel=rows,experimental.long_rows=fused",
          "experimental.long_rows=fused");
  accepts("hip", ZS_FORMAT_CSR, "kernel=auto,experimental.long_rows=fused",
          "experimental.long_rows=fused");
  /* kernel=auto with one kernel's own option takes that kernel (the option is obeyed, not
   * dropped where the module would choose the other); one option of each is refused */
  accepts("cuda", ZS_FORMAT_CSR, "experimental.long_rows=fused", "kernel=rows,");
  accepts("cuda", ZS_FORMAT_CSR, "experimental.reduce=threads,block_nnz=512", "kernel=rows,");
  accepts("hip", ZS_FORMAT_CSR, "experimental.split_spans=kernel", "kernel=split,");
  accepts("cuda", ZS_FORMAT_CSR, "kernel=auto,experimental.split_stage=early", "kernel=split,");
  accepts("cuda", ZS_FORMAT_CSR, "experimental.long_rows=kernel", "kernel=auto,");
  accepts("cuda", ZS_FORMAT_CSR, "experimental.split_stage=auto", "kernel=auto,");
  refuses("cuda", ZS_FORMAT_CSR, "experimental.reduce=threads,experimental.split_spans=wait",
          "experimental.reduce=threads and experimental.split_spans=wait cannot be combined");
  refuses("hip", ZS_FORMAT_CSR, "experimental.split_stage=plain,experimental.long_rows=fused",
          "the first applies to kernel=rows only");
  /* CCI's experimental.kernel is another option: its value is left alone */
  accepts("cuda", ZS_FORMAT_CCI, "experimental.kernel=slices", "experimental.kernel=slices");
  /* the split kernel's own options with the row blocks, and the row blocks' with the split
   * kernel: refused, the value given named; auto (or the default) is taken with either */
  refuses("cuda", ZS_FORMAT_CSR, "kernel=split,experimental.reduce=threads",
          "kernel=split and experimental.reduce=threads");
  refuses("hip", ZS_FORMAT_CSR, "experimental.split_stage=early,kernel=rows",
          "kernel=rows and experimental.split_stage=early");
  refuses("cuda", ZS_FORMAT_CSR, "kernel=rows,experimental.split_spans=kernel",
          "kernel=rows and experimental.split_spans=kernel");
  accepts("cuda", ZS_FORMAT_CSR, "kernel=rows,experimental.split_stage=auto", "kernel=rows");
  accepts("cuda", ZS_FORMAT_CSR, "kernel=rows,experimental.reduce=threads",
          "experimental.reduce=threads");
  accepts("hip", ZS_FORMAT_CSR, "kernel=auto,experimental.split_spans=wait", "kernel=split,");
  /* the help lists every option, the last one whole */
  const char *help = zs_operator_options_help();
  CHECK(strstr(help, "fused is refused with kernel=split") != NULL);
  CHECK(strstr(help, "experimental.sell_transpose=") != NULL && help[strlen(help) - 1] == '\n');
  CHECK_DONE();
}
