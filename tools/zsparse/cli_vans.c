/* cli_vans.c — `zsparse vans`: MAT-VANS containers: generate, encode, inspect and run. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/io/safe_output.h"
#include "zsparse_vans.h"

static const char help_text[] =
    "usage: zsparse vans gen SPEC OUT [--per-row] [--interleaved | --pairs] [--baseline]\n"
    "       zsparse vans encode IN OUT [--per-row] [--interleaved | --pairs] [--baseline]\n"
    "       zsparse vans info FILE [--json]\n"
    "       zsparse vans run FILE [--backend NAME] [--reps N] [--output FILE] [--json]\n"
    "\n"
    "MAT-VANS: K int8 layers, each row rANS-coded, multiplied in a chain with int32\n"
    "accumulation and requantisation to int8 (docs/formats/vans.md).\n"
    "\n"
    "  gen     test layers: SPEC \"n=4096,k=20,seed=1[,rows=R][,entropy=BITS][,v0=SEED]\":\n"
    "          Gaussian weights quantised at absmax/127, or at the step giving about BITS of\n"
    "          entropy per weight\n"
    "  encode  IN is the report's baseline file (Appendix A, plain int8) or a container;\n"
    "          OUT is a container coded with the options given\n"
    "  info    per layer: size, w_min, |G|, entropy and cross-entropy of the weights, payload\n"
    "          bits per weight, bytes\n"
    "  run     the chained product of the stored v0 on a backend (default: the context's\n"
    "          default); prints the output's FNV-1a hash and the time per chain\n"
    "\n"
    "options:\n"
    "  --per-row       one scale per row (the report's better option) instead of per layer\n"
    "  --interleaved   rows as 32 interleaved sub-streams (the GPU layout); the extended\n"
    "                  container, which readers of the report's Table 1 do not know\n"
    "  --pairs         rows as 32 interleaved sub-streams of weight pairs under a 12-bit\n"
    "                  model (the fastest GPU layout; extended container); refused for\n"
    "                  layers with more than 4096 distinct pairs of neighbouring weights\n"
    "  --baseline      gen: write the baseline file instead; encode: IN is a baseline file\n"
    "  --backend NAME  ref, cpu, cuda or hip\n"
    "  --reps N        timed runs after one warm-up (default 10)\n"
    "  --output FILE   run: write the N_K int8 outputs there (- for standard output, the\n"
    "                  summary then on standard error), replacing FILE only once complete\n"
    "  --json          one JSON object on stdout\n";

static uint32_t fnv1a(const int8_t *p, int64_t n) {
  uint32_t h = 2166136261u;
  for (int64_t i = 0; i < n; i++) h = (h ^ (uint8_t)p[i]) * 16777619u;
  return h;
}

static int cmd_info(const char *path, int json) {
  zs_vans *V = NULL;
  zs_status s = zs_vans_read(&V, path);
  if (s != ZS_OK) {
    zs_cli_lib_error("vans info", s);
    return ZS_CLI_FAIL;
  }
  const int K = zs_vans_layers(V);
  zs_json j;
  if (json) {
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "file", path);
    zs_json_int(&j, "layers", K);
    zs_json_int(&j, "n0", zs_vans_dim(V, 0));
    zs_json_bool(&j, "per_row", (zs_vans_flags(V) & ZS_VANS_PER_ROW) != 0);
    zs_json_bool(&j, "interleaved", (zs_vans_flags(V) & ZS_VANS_INTERLEAVED) != 0);
    zs_json_bool(&j, "pairs", (zs_vans_flags(V) & ZS_VANS_PAIRS) != 0);
    zs_json_array(&j, "layer");
  } else {
    printf("%s: %d layers, N_0 = %lld, %s scales, %s layout\n", path, K,
           (long long)zs_vans_dim(V, 0), zs_vans_flags(V) & ZS_VANS_PER_ROW ? "row" : "layer",
           zs_vans_flags(V) & ZS_VANS_INTERLEAVED ? "interleaved (32 lanes)"
           : zs_vans_flags(V) & ZS_VANS_PAIRS     ? "pairs (32 lanes, 12-bit pair model)"
                                                  : "report");
    printf("%5s %7s %7s %11s %6s %4s %8s %8s %8s %12s\n", "layer", "rows", "cols", "delta", "w_min",
           "|G|", "H bits", "model", "bits/w", "bytes");
  }
  double bytes = 0, weights = 0;
  for (int k = 0; k < K; k++) {
    zs_vans_layer_info in;
    zs_vans_layer_info_get(V, k, &in);
    bytes += (double)in.bytes;
    weights += (double)in.rows * (double)in.cols;
    if (json) {
      zs_json_object(&j, NULL);
      zs_json_int(&j, "rows", in.rows);
      zs_json_int(&j, "cols", in.cols);
      zs_json_num(&j, "delta", in.delta);
      zs_json_int(&j, "w_min", in.w_min);
      zs_json_int(&j, "grid", in.grid);
      zs_json_num(&j, "entropy_bits", in.entropy_bits);
      zs_json_num(&j, "cross_entropy_bits", in.cross_entropy_bits);
      zs_json_num(&j, "payload_bits_per_weight", in.payload_bits_per_weight);
      zs_json_int(&j, "bytes", in.bytes);
      zs_json_object_end(&j);
    } else {
      printf("%5d %7lld %7lld %11.4g %6d %4d %8.4f %8.4f %8.4f %12lld\n", k, (long long)in.rows,
             (long long)in.cols, (double)in.delta, in.w_min, in.grid, in.entropy_bits,
             in.cross_entropy_bits, in.payload_bits_per_weight, (long long)in.bytes);
    }
  }
  if (json) {
    zs_json_array_end(&j);
    zs_json_num(&j, "bits_per_weight", 8.0 * bytes / weights);
    zs_json_end(&j);
  } else {
    printf("all layers: %.0f bytes, %.4f bits per weight with tables and cursors\n", bytes,
           8.0 * bytes / weights);
  }
  zs_vans_destroy(&V);
  return ZS_CLI_OK;
}

static int cmd_run(const char *path, const char *backend, int64_t reps, const char *out, int json) {
  zs_vans *V = NULL;
  zs_context *ctx = NULL;
  zs_vans_chain *c = NULL;
  int8_t *y = NULL;
  int rc = ZS_CLI_FAIL;
  zs_status s = zs_vans_read(&V, path);
  if (s == ZS_OK) s = zs_context_create(&ctx);
  const double t0 = zs_cli_now();
  if (s == ZS_OK) s = zs_vans_chain_create(&c, ctx, V, backend);
  const double t_create = zs_cli_now() - t0;
  const int64_t nk = V ? zs_vans_dim(V, zs_vans_layers(V)) : 0;
  if (s == ZS_OK && !(y = malloc((size_t)nk))) s = ZS_ERR_OUT_OF_MEMORY;
  if (s == ZS_OK) s = zs_vans_chain_run(c, NULL, y);
  double ms = 0;
  if (s == ZS_OK) s = zs_vans_chain_time(c, (int)reps, &ms);
  if (s != ZS_OK) {
    zs_cli_lib_error("vans run", s);
    goto done;
  }
  if (out && (s = zsi_output_write_all(out, ZSI_OUTPUT_BINARY, y, (size_t)nk)) != ZS_OK) {
    zs_cli_lib_error("vans run", s);
    goto done;
  }
  const char *bname = backend ? backend : zs_context_default_backend(ctx);
  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "file", path);
    zs_json_str(&j, "backend", bname);
    zs_json_int(&j, "layers", zs_vans_layers(V));
    zs_json_int(&j, "n_out", nk);
    zs_json_int(&j, "hash", fnv1a(y, nk));
    zs_json_num(&j, "ms_per_chain", ms);
    zs_json_num(&j, "ms_per_layer", ms / zs_vans_layers(V));
    zs_json_num(&j, "ms_create", t_create * 1e3);
    zs_json_end(&j);
  } else {
    fprintf(out && strcmp(out, "-") == 0 ? stderr : stdout,
            "%s on %s: %d layers, output hash %08x, %.4f ms per chain (%.4f per layer), "
            "%.3f ms to set up\n",
            path, bname, zs_vans_layers(V), fnv1a(y, nk), ms, ms / zs_vans_layers(V),
            t_create * 1e3);
  }
  rc = ZS_CLI_OK;
done:
  free(y);
  zs_vans_chain_destroy(&c);
  zs_context_destroy(&ctx);
  zs_vans_destroy(&V);
  return rc;
}

int zs_cli_vans(int argc, char **argv) {
  zs_cli_opt opts[] = {{"per-row", 0, 0, NULL},   {"interleaved", 0, 0, NULL},
                       {"pairs", 0, 0, NULL},     {"baseline", 0, 0, NULL},
                       {"backend", 'b', 1, NULL}, {"reps", 'r', 1, NULL},
                       {"output", 'o', 1, NULL},  {"json", 0, 0, NULL}};
  const int n_opts = (int)(sizeof opts / sizeof opts[0]);
  const char *pos[3];
  int n_pos, help;
  int rc = zs_cli_parse("vans", argc, argv, opts, n_opts, pos, 3, &n_pos, &help);
  if (rc) return rc;
  if (help) {
    fputs(help_text, stdout);
    return ZS_CLI_OK;
  }
  if (n_pos < 1) {
    zs_cli_usage_error("vans", "missing command (gen, encode, info or run)");
    return ZS_CLI_USAGE;
  }
  const char *cmd = pos[0];
  const unsigned flags = (zs_cli_get(opts, n_opts, "per-row") ? ZS_VANS_PER_ROW : 0u) |
                         (zs_cli_get(opts, n_opts, "interleaved") ? ZS_VANS_INTERLEAVED : 0u) |
                         (zs_cli_get(opts, n_opts, "pairs") ? ZS_VANS_PAIRS : 0u);
  const int baseline = zs_cli_get(opts, n_opts, "baseline") != NULL;
  const int json = zs_cli_get(opts, n_opts, "json") != NULL;
  const int want = strcmp(cmd, "gen") == 0 || strcmp(cmd, "encode") == 0 ? 3 : 2;
  if (strcmp(cmd, "gen") && strcmp(cmd, "encode") && strcmp(cmd, "info") && strcmp(cmd, "run")) {
    zs_cli_usage_error("vans", "unknown command '%s' (gen, encode, info or run)", cmd);
    return ZS_CLI_USAGE;
  }
  if (n_pos != want) {
    zs_cli_usage_error("vans", "'%s' takes %d argument%s", cmd, want - 1, want > 2 ? "s" : "");
    return ZS_CLI_USAGE;
  }
  if (strcmp(cmd, "info") == 0) return cmd_info(pos[1], json);
  if (strcmp(cmd, "run") == 0) {
    int64_t reps = 10;
    const char *r = zs_cli_get(opts, n_opts, "reps"), *out = zs_cli_get(opts, n_opts, "output");
    if (out && strcmp(out, "-") == 0 && json) {
      zs_cli_usage_error("vans", "--json and --output - both want standard output");
      return ZS_CLI_USAGE;
    }
    if (r && zs_cli_parse_int(r, 1, 1000000, &reps)) {
      zs_cli_usage_error("vans", "--reps wants an integer in 1..1000000, not '%s'", r);
      return ZS_CLI_USAGE;
    }
    return cmd_run(pos[1], zs_cli_get(opts, n_opts, "backend"), reps, out, json);
  }
  zs_vans *V = NULL;
  zs_status s;
  if (strcmp(cmd, "gen") == 0) {
    s = zs_vans_generate(&V, pos[1], flags);
  } else if (baseline) {
    s = zs_vans_read_baseline(&V, pos[1], flags);
  } else {
    zs_vans *in = NULL;
    s = zs_vans_read(&in, pos[1]);
    if (s == ZS_OK) s = zs_vans_create(&V, zs_vans_dim(in, 0), zs_vans_v0(in), flags);
    for (int k = 0; s == ZS_OK && k < zs_vans_layers(in); k++) {
      /* Re-code with the options given: decoded weights, scales carried over. */
      const int64_t r = zs_vans_dim(in, k + 1), c = zs_vans_dim(in, k);
      int8_t *w = malloc((size_t)(r * c));
      float *sc = malloc((size_t)r * sizeof(float));
      zs_vans_layer_info li;
      if (!w || !sc) s = ZS_ERR_OUT_OF_MEMORY;
      if (s == ZS_OK) s = zs_vans_layer_decode(in, k, w);
      if (s == ZS_OK) s = zs_vans_layer_info_get(in, k, &li);
      for (int64_t i = 0; s == ZS_OK && i < r; i++) sc[i] = li.delta;
      if (s == ZS_OK && (zs_vans_flags(in) & ZS_VANS_PER_ROW))
        fprintf(stderr, "zsparse vans encode: note: row scales become the layer's delta\n");
      if (s == ZS_OK) s = zs_vans_add_layer_int8(V, r, w, sc);
      free(w);
      free(sc);
    }
    zs_vans_destroy(&in);
  }
  if (s == ZS_OK)
    s = strcmp(cmd, "gen") == 0 && baseline ? zs_vans_write_baseline(V, pos[2])
                                            : zs_vans_write(V, pos[2]);
  if (s != ZS_OK) {
    zs_cli_lib_error("vans", s);
    zs_vans_destroy(&V);
    return ZS_CLI_FAIL;
  }
  if (json) {
    zs_json j;
    zs_json_begin(&j, stdout);
    zs_json_str(&j, "output", pos[2]);
    zs_json_int(&j, "layers", zs_vans_layers(V));
    zs_json_end(&j);
  }
  zs_vans_destroy(&V);
  return ZS_CLI_OK;
}
