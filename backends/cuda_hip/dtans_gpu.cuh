/* dtans_gpu.cuh — CSR-dtANS operators of the GPU modules (docs/formats/dtans.md): one warp
 * decodes a slice of 32 lanes in lockstep with the tables in shared memory (a 64-wide wavefront
 * decodes two slices). Included by gpu_module.cuh inside its anonymous namespace. */
#include "formats/dtans/dtans_table.h"

#define ZS_DT_LANES 32
#define ZS_DT_THREADS 256
#define ZS_DT_SUBS (ZS_WARP_SIZE / ZS_DT_LANES) /* slices per warp */

/* Device arrays of an operator, as the kernel reads them. Table entries are
 * id << 16 | (base - 1) << 8 | digit; ids at or past `dreal`/`vreal` are escapes. */
struct zs_dt_args {
  const uint32_t *stream, *row_nnz, *dtab, *vtab;
  const int64_t *slice_words, *slice_desc, *slice_vesc, *slice_raw, *slice_rows;
  const int32_t *dsym, *desc;
  const void *vsym, *vesc, *raw;
  int64_t rows, slices;
  int dreal, vreal;
};

enum { ZS_DT_SPMV = 0, ZS_DT_SCATTER = 1, ZS_DT_WRITE = 2 };

/* Lane exclusive prefix of v within its slice of 32 lanes; *total is the slice's sum. */
__device__ __forceinline__ int zs_dt_scan(int v, int l, int *total) {
  int inc = v;
  for (int d = 1; d < ZS_DT_LANES; d *= 2) {
    const int up = zs_shfl_up(inc, d);
    if (l >= d) inc += up;
  }
  *total = zs_shfl(inc, (int)(threadIdx.x % ZS_WARP_SIZE) | (ZS_DT_LANES - 1));
  return inc - v;
}

/* Stream words staged per slice in shared memory: a batch of ZS_DT_BATCH words is loaded into
 * registers one segment step before it is needed, so the decode never waits on the stream. */
#define ZS_DT_RING 256
#define ZS_DT_BATCH 128
#define ZS_DT_SLICES_PER_BLOCK (ZS_DT_THREADS / ZS_DT_LANES)

/* MODE: SPMV (y = alpha A x + beta y), SCATTER (y += alpha Aᵀ x; y scaled by beta before) or
 * WRITE (the decoded CSR into out_col/out_val at row_ptr). VMODE: 0 coded, 1 constant, 2 raw. */
template <typename T, int VMODE, int MODE>
__global__ void __launch_bounds__(ZS_DT_THREADS, 3)
    zs_dtans_kernel(const zs_dt_args a, T constant, const T *__restrict__ x, T *__restrict__ y,
                    T alpha, T beta, const int64_t *row_ptr, int32_t *out_col, T *out_val,
                    int64_t stream_len) {
  constexpr bool CODED = VMODE == 0, RAW = VMODE == 2;
  constexpr int PER = CODED ? 4 : 8;
  extern __shared__ uint64_t zs_dt_smem64[]; /* 8-byte aligned for f64 symbols */
  uint32_t *ring_all = (uint32_t *)zs_dt_smem64;
  uint32_t *dtab = ring_all + ZS_DT_SLICES_PER_BLOCK * ZS_DT_RING;
  uint32_t *vtab = dtab + DTANS_K;
  T *vsym = (T *)(vtab + (CODED ? DTANS_K : 0));
  int32_t *dsym = (int32_t *)(vsym + (CODED ? a.vreal : 0));
  for (int i = threadIdx.x; i < DTANS_K; i += blockDim.x) {
    dtab[i] = a.dtab[i];
    if (CODED) vtab[i] = a.vtab[i];
  }
  for (int i = threadIdx.x; i < a.dreal; i += blockDim.x) dsym[i] = a.dsym[i];
  if (CODED)
    for (int i = threadIdx.x; i < a.vreal; i += blockDim.x) vsym[i] = ((const T *)a.vsym)[i];
  __syncthreads();

  const int lane = threadIdx.x % ZS_WARP_SIZE, l = lane % ZS_DT_LANES, sub = lane / ZS_DT_LANES;
  uint32_t *ring = ring_all + (threadIdx.x / ZS_DT_LANES) * ZS_DT_RING;
  const zs_lane_mask lt = ((zs_lane_mask)1 << lane) - 1;
  const zs_lane_mask half = ZS_DT_SUBS == 1 ? ~(zs_lane_mask)0
                                            : (zs_lane_mask)0xffffffffu
                                                  << (ZS_DT_LANES * sub); /* my slice's lanes */
  const int wpb = blockDim.x / ZS_WARP_SIZE;
  const int64_t groups = (a.slices + ZS_DT_SUBS - 1) / ZS_DT_SUBS;
  for (int64_t g = (int64_t)blockIdx.x * wpb + threadIdx.x / ZS_WARP_SIZE; g < groups;
       g += (int64_t)gridDim.x * wpb) {
    const int64_t s = g * ZS_DT_SUBS + sub;
    const bool live = s < a.slices;
    const int64_t first = live ? a.slice_rows[s] + l : 0;
    const int64_t stop = live ? a.slice_rows[s + 1] : 0;
    int64_t n = 0;
    if (live)
      for (int64_t i = first; i < stop; i += ZS_DT_LANES) n += dtans_coded_len(a.row_nnz[i]);
    const int64_t segs = (n + PER - 1) / PER;
    /* The lane sits before its first row; the next row's length is always loaded one row ahead,
     * so moving on never waits for it. */
    int32_t row = (int32_t)(first - ZS_DT_LANES), nrow = (int32_t)first, col = 0;
    uint32_t left = 0, nleft = live && first < stop ? a.row_nnz[first] : 0; /* as stored */
    int64_t at = 0;
    T sum = T(0);
    auto advance = [&]() {
      row = nrow, left = nleft, col = row;
      while (dtans_coded_len(left) == 0) { /* no coded nonzeros (rare): an empty row's y */
        if (MODE == ZS_DT_SPMV && left != DTANS_LONG) y[row] = beta == T(0) ? T(0) : beta * y[row];
        row += ZS_DT_LANES, col = row;
        left = a.row_nnz[row];
      }
      if (MODE == ZS_DT_WRITE) at = row_ptr[row];
      nrow = row + ZS_DT_LANES;
      nleft = nrow < stop ? a.row_nnz[nrow] : 0;
    };
    int64_t cur = live ? a.slice_words[s] : 0, desc = live ? a.slice_desc[s] : 0;
    int64_t vesc = live && CODED ? a.slice_vesc[s] : 0, raw = live && RAW ? a.slice_raw[s] : 0;
    /* Stream staging: ring holds words [cur, fill); a batch of registers may be in flight. */
    int64_t fill = cur;
    uint32_t batch[ZS_DT_BATCH / ZS_DT_LANES];
    bool pending = false;
    auto issue = [&]() {
#pragma unroll
      for (int k = 0; k < ZS_DT_BATCH / ZS_DT_LANES; k++) {
        const int64_t p = fill + l + ZS_DT_LANES * k;
        batch[k] = p < stream_len ? zs_load_stream(a.stream + p) : 0u;
      }
      pending = true;
    };
    auto land = [&]() {
#pragma unroll
      for (int k = 0; k < ZS_DT_BATCH / ZS_DT_LANES; k++)
        ring[(fill + l + ZS_DT_LANES * k) & (ZS_DT_RING - 1)] = batch[k];
      fill += ZS_DT_BATCH, pending = false;
      zs_syncwarp();
    };
    /* Before a segment's loads: at most 3 words per lane are taken. */
    auto stage = [&]() {
      if (pending) land();
      while (fill < cur + 3 * ZS_DT_LANES) issue(), land();
    };
    auto load = [&](bool need, uint32_t &w) {
      const zs_lane_mask m = zs_ballot(need) & half;
      if (need) w = ring[(cur + zs_popc(m & lt)) & (ZS_DT_RING - 1)];
      cur += zs_popc(m);
    };
    uint32_t w0 = 0, w1 = 0, w2 = 0;
    stage();
    load(segs > 0, w0), load(segs > 0, w1), load(segs > 0, w2);
    zs_syncwarp();
    if (fill + ZS_DT_BATCH - cur <= ZS_DT_RING) issue();
    uint32_t d = 0, r = 1;
    int64_t max_segs = segs;
    for (int o = ZS_WARP_SIZE / 2; o > 0; o /= 2) {
      const int64_t other = zs_shfl_xor(max_segs, o);
      max_segs = other > max_segs ? other : max_segs;
    }
    for (int64_t t = 0; t < max_segs; t++) {
      const int todo = t < segs ? (int)(n - t * PER < PER ? n - t * PER : PER) : 0;
      uint32_t e[8];
#pragma unroll
      for (int k = 0; k < 8; k++) {
        const uint32_t slot = dtans_unpack(w0, w1, w2, k);
        e[k] = (CODED && (k & 1)) ? vtab[slot] : dtab[slot];
      }
      /* Escapes and raw values of this segment: lanes in order, each lane's in position order. */
      int nd = 0, nv = 0;
#pragma unroll
      for (int i = 0; i < PER; i++)
        if (i < todo) {
          nd += (int)(e[CODED ? 2 * i : i] >> 16) >= a.dreal;
          if (CODED) nv += (int)(e[2 * i + 1] >> 16) >= a.vreal;
        }
      int64_t dpos = desc, vpos = vesc, rpos = raw;
      int total;
      if (zs_ballot(nd > 0)) dpos += zs_dt_scan(nd, l, &total), desc += total;
      if (CODED && zs_ballot(nv > 0)) vpos += zs_dt_scan(nv, l, &total), vesc += total;
      if (RAW) rpos += zs_dt_scan(todo, l, &total), raw += total;
      /* Decode: columns, values and rows of the segment's nonzeros; row ends are marked. */
      int32_t c[PER], rw[PER];
      T v[PER];
      int64_t ats[MODE == ZS_DT_WRITE ? PER : 1];
      unsigned fin = 0;
#pragma unroll
      for (int i = 0; i < PER; i++)
        if (i < todo) {
          if (left == 0) advance();
          const int did = (int)(e[CODED ? 2 * i : i] >> 16);
          col += did < a.dreal ? dsym[did] : a.desc[dpos++];
          c[i] = col, rw[i] = row;
          if (MODE == ZS_DT_WRITE) ats[i] = at++;
          if (--left == 0) fin |= 1u << i;
          if (CODED) {
            const int vid = (int)(e[2 * i + 1] >> 16);
            v[i] = vid < a.vreal ? vsym[vid] : ((const T *)a.vesc)[vpos++];
          } else if (RAW) {
            v[i] = zs_load_stream((const T *)a.raw + rpos + i);
          } else {
            v[i] = constant;
          }
        }
      /* The state takes the segment's digits; each check yields a word or asks the stream.
       * 32-bit arithmetic: a half's base B ≤ 2^32 is carried as B − 1, and d, r < 2^32 here. */
      const bool more = t + 1 < segs;
      bool ext0 = false, ext1 = false;
      if (more) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const uint32_t *q = e + 4 * h;
          const uint32_t m0 = (q[0] >> 8) & 0xffu, m1 = (q[1] >> 8) & 0xffu;
          const uint32_t m2 = (q[2] >> 8) & 0xffu, m3 = (q[3] >> 8) & 0xffu;
          const uint32_t D =
              (((q[0] & 0xffu) * (m1 + 1) + (q[1] & 0xffu)) * (m2 + 1) + (q[2] & 0xffu)) *
                  (m3 + 1) +
              (q[3] & 0xffu);
          const uint32_t p2 = (m0 + 1) * (m1 + 1) * (m2 + 1);
          const uint32_t bm1 = p2 * m3 + (p2 - 1);
          const uint64_t nd = (uint64_t)d * bm1 + d + D, nr = (uint64_t)r * bm1 + r;
          if (nr >> 32) {
            if (h == 0)
              w0 = (uint32_t)nd, ext0 = true;
            else
              w1 = (uint32_t)nd, ext1 = true;
            d = (uint32_t)(nd >> 32), r = (uint32_t)(nr >> 32);
          } else {
            d = (uint32_t)nd, r = (uint32_t)nr;
          }
        }
      }
      stage();
      load(more && !ext0, w0), load(more && !ext1, w1), load(more, w2);
      zs_syncwarp();
      if (!pending && fill + ZS_DT_BATCH - cur <= ZS_DT_RING) issue();
      /* Multiply: all gathers of the segment first, then the sums in order. */
      if (MODE == ZS_DT_SPMV) {
        T xv[PER];
#pragma unroll
        for (int i = 0; i < PER; i++) xv[i] = i < todo ? x[c[i]] : T(0);
#pragma unroll
        for (int i = 0; i < PER; i++)
          if (i < todo) {
            sum += v[i] * xv[i];
            if (fin >> i & 1) {
              y[rw[i]] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[rw[i]];
              sum = T(0);
            }
          }
      } else if (MODE == ZS_DT_SCATTER) {
#pragma unroll
        for (int i = 0; i < PER; i++)
          if (i < todo) atomicAdd(&y[c[i]], alpha * (v[i] * x[rw[i]]));
      } else {
#pragma unroll
        for (int i = 0; i < PER; i++)
          if (i < todo) out_col[ats[i]] = c[i], out_val[ats[i]] = v[i];
      }
    }
    /* The lane's rows after its last nonzero have none: their y. */
    if (MODE == ZS_DT_SPMV && live)
      for (int64_t q = (left == 0 ? row : row - ZS_DT_LANES) + ZS_DT_LANES; q < stop;
           q += ZS_DT_LANES)
        if (a.row_nnz[q] != DTANS_LONG) y[q] = beta == T(0) ? T(0) : beta * y[q];
    zs_syncwarp();
  }
}

/* Long rows (plain CSR, few but long: an R-MAT hub holds 10^5 nonzeros) in chunks of
 * ZS_DT_CHUNK nonzeros, a block each: SpMV leaves one partial per chunk, which the fix-up adds in
 * chunk order (deterministic); SpMVT scatters, the CSR copy writes. */
#define ZS_DT_CHUNK 4096
#define ZS_DT_CHUNK_THREADS 256

template <typename T, int MODE>
__global__ void __launch_bounds__(ZS_DT_CHUNK_THREADS)
    zs_dtans_long_kernel(int64_t n_chunks, const int32_t *chunk_long, const int64_t *chunk_ptr,
                         const int32_t *rows, const int64_t *ptr, const int32_t *cols,
                         const T *vals, const T *__restrict__ x, T *__restrict__ y, T alpha,
                         T *partial, const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  __shared__ T red[ZS_DT_CHUNK_THREADS];
  for (int64_t c = blockIdx.x; c < n_chunks; c += gridDim.x) {
    const int32_t k = chunk_long[c], r = rows[k];
    const int64_t b = ptr[k] + (c - chunk_ptr[k]) * ZS_DT_CHUNK;
    const int64_t e = b + ZS_DT_CHUNK < ptr[k + 1] ? b + ZS_DT_CHUNK : ptr[k + 1];
    T sum = T(0);
    for (int64_t j = b + threadIdx.x; j < e; j += ZS_DT_CHUNK_THREADS) {
      if (MODE == ZS_DT_SPMV)
        sum += vals[j] * x[cols[j]];
      else if (MODE == ZS_DT_SCATTER)
        atomicAdd(&y[cols[j]], alpha * (vals[j] * x[r]));
      else
        out_col[row_ptr[r] + j - ptr[k]] = cols[j], out_val[row_ptr[r] + j - ptr[k]] = vals[j];
    }
    if (MODE == ZS_DT_SPMV) {
      red[threadIdx.x] = sum;
      __syncthreads();
      for (int w = ZS_DT_CHUNK_THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
      }
      if (threadIdx.x == 0) partial[c] = red[0];
      __syncthreads();
    }
  }
}

template <typename T>
__global__ void zs_dtans_long_fixup(int64_t n_long, const int32_t *rows, const int64_t *chunk_ptr,
                                    const T *partial, T *y, T alpha, T beta) {
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n_long;
       k += (int64_t)gridDim.x * blockDim.x) {
    T sum = T(0);
    for (int64_t c = chunk_ptr[k]; c < chunk_ptr[k + 1]; c++) sum += partial[c];
    const int32_t r = rows[k];
    y[r] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
}

struct dtans_gpu_op {
  zs_type type;
  int vmode, dreal, vreal;
  int64_t rows, cols, nnz, slices;
  bool atomic;
  double constant;
  uint32_t *stream, *row_nnz, *dtab, *vtab;
  int64_t *slice_words, *slice_desc, *slice_vesc, *slice_raw, *slice_rows;
  int32_t *dsym, *desc;
  void *vsym, *vesc, *raw;
  int64_t n_long, n_chunks;
  int32_t *long_rows, *long_cols, *chunk_long; /* chunk c belongs to long row chunk_long[c] */
  int64_t *chunk_ptr;                          /* long row k: chunks [chunk_ptr[k], [k + 1]) */
  void *partial;
  int64_t *long_ptr;
  void *long_values;
  size_t smem;
  int64_t stream_len;
  int64_t *host_row_ptr; /* kept for the deterministic SpMVT's CSR (NULL with transpose=atomic) */
  gpu_op *csr;           /* built on the first deterministic SpMVT */
};

void dtans_gpu_destroy(void *state) {
  dtans_gpu_op *op = (dtans_gpu_op *)state;
  if (!op) return;
  void *p[] = {op->stream,     op->row_nnz,     op->dtab,       op->vtab,       op->slice_words,
               op->slice_desc, op->slice_vesc,  op->slice_raw,  op->dsym,       op->desc,
               op->vsym,       op->vesc,        op->raw,        op->long_rows,  op->long_cols,
               op->long_ptr,   op->long_values, op->slice_rows, op->chunk_long, op->chunk_ptr,
               op->partial};
  for (void *q : p) release(q);
  if (op->csr) op_free(op->csr);
  free(op->host_row_ptr);
  free(op);
}

zs_status dtans_upload(void **dst, const zsb_encoded_view *v, const char *name) {
  const zsb_array *a = zsb_find_array(v, name);
  if (!a)
    return fail(ZS_ERR_CORRUPT, "backend '%s': dtans array '%s' missing", ZS_GPU_BACKEND_NAME,
                name);
  *dst = NULL;
  if (a->count == 0) return ZS_OK;
  const size_t bytes = (size_t)(a->count * a->elem_size);
  zs_status s = check(gpuMalloc(dst, bytes), name);
  if (s == ZS_OK) s = check(gpuMemcpy(*dst, a->data, bytes, gpuMemcpyHostToDevice), name);
  return s;
}

zs_status dtans_upload_table(uint32_t **dst, const zsb_encoded_view *v, const char *name) {
  const zsb_array *a = zsb_find_array(v, name);
  if (!a)
    return fail(ZS_ERR_CORRUPT, "backend '%s': dtans array '%s' missing", ZS_GPU_BACKEND_NAME,
                name);
  uint32_t words[DTANS_K];
  dtans_table_words((const uint16_t *)a->data, (int)a->count, words);
  return upload_array(dst, words, DTANS_K, name);
}

zs_status dtans_gpu_create(void **state, const zsb_encoded_view *v, const char *options) {
  bool atomic = false;
  int items = 0;
  zs_status s = parse_options(options, &atomic, &items);
  if (s != ZS_OK) return s;
  dtans_gpu_op *op = (dtans_gpu_op *)calloc(1, sizeof(dtans_gpu_op));
  if (!op) return fail(ZS_ERR_OUT_OF_MEMORY, "dtans operator");
  op->type = v->type, op->rows = v->rows, op->cols = v->cols, op->nnz = v->nnz;
  op->atomic = atomic;
  op->slices = zsb_find_param(v, "slices", 0);
  op->vmode = (int)zsb_find_param(v, "value_mode", 2);
  op->dreal = (int)zsb_find_param(v, "delta_real", 0);
  op->vreal = (int)zsb_find_param(v, "value_real", 0);
  const size_t es = type_size(v->type);
  op->smem = 4 * (size_t)ZS_DT_SLICES_PER_BLOCK * ZS_DT_RING + 4 * DTANS_K + 4 * (size_t)op->dreal;
  if (op->vmode == 0) op->smem += 4 * DTANS_K + es * (size_t)op->vreal;
  if (op->smem > g_state.smem_optin) {
    dtans_gpu_destroy(op);
    return fail(ZS_ERR_UNSUPPORTED,
                "backend '%s': dtans tables need %zu bytes of shared memory, the device allows "
                "%zu per block",
                ZS_GPU_BACKEND_NAME, op->smem, g_state.smem_optin);
  }
  const uint32_t *row_nnz = (const uint32_t *)zsb_find_array(v, "row_nnz")->data;
  int64_t *row_ptr = (int64_t *)malloc(((size_t)op->rows + 1) * sizeof(int64_t));
  if (!row_ptr) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans row offsets");
  const int64_t *lptr = (const int64_t *)zsb_find_array(v, "long_ptr")->data;
  if (s == ZS_OK) {
    row_ptr[0] = 0;
    for (int64_t i = 0, k = 0; i < op->rows; i++) {
      int64_t n = row_nnz[i];
      if (row_nnz[i] == DTANS_LONG) n = lptr[k + 1] - lptr[k], k++;
      row_ptr[i + 1] = row_ptr[i] + n;
    }
  }
  if (s == ZS_OK) s = dtans_upload((void **)&op->stream, v, "stream");
  op->stream_len = (int64_t)zsb_find_array(v, "stream")->count;
  if (s == ZS_OK) s = dtans_upload((void **)&op->row_nnz, v, "row_nnz");
  if (s == ZS_OK) s = dtans_upload((void **)&op->slice_words, v, "slice_words");
  if (s == ZS_OK) s = dtans_upload((void **)&op->slice_rows, v, "slice_rows");
  const int64_t *srows = (const int64_t *)zsb_find_array(v, "slice_rows")->data;
  if (s == ZS_OK) s = dtans_upload((void **)&op->slice_desc, v, "slice_delta_escapes");
  if (s == ZS_OK) s = dtans_upload((void **)&op->desc, v, "delta_escapes");
  if (s == ZS_OK) s = dtans_upload((void **)&op->dsym, v, "delta_symbols");
  if (s == ZS_OK) s = dtans_upload_table(&op->dtab, v, "delta_counts");
  if (s == ZS_OK) s = dtans_upload((void **)&op->long_rows, v, "long_rows");
  if (s == ZS_OK) s = dtans_upload((void **)&op->long_ptr, v, "long_ptr");
  if (s == ZS_OK) s = dtans_upload((void **)&op->long_cols, v, "long_cols");
  if (s == ZS_OK) s = dtans_upload(&op->long_values, v, "long_values");
  op->n_long = (int64_t)zsb_find_array(v, "long_rows")->count;
  if (s == ZS_OK && op->n_long > 0) {
    int64_t *cptr = (int64_t *)malloc(((size_t)op->n_long + 1) * sizeof(int64_t));
    if (!cptr) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans long-row chunks");
    for (int64_t k = 0; s == ZS_OK && k <= op->n_long; k++)
      cptr[k] = k ? cptr[k - 1] + (lptr[k] - lptr[k - 1] + ZS_DT_CHUNK - 1) / ZS_DT_CHUNK : 0;
    int32_t *owner = NULL;
    if (s == ZS_OK) {
      op->n_chunks = cptr[op->n_long];
      owner = (int32_t *)malloc((size_t)op->n_chunks * sizeof(int32_t));
      if (!owner) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans long-row chunks");
      for (int64_t k = 0; s == ZS_OK && k < op->n_long; k++)
        for (int64_t c = cptr[k]; c < cptr[k + 1]; c++) owner[c] = (int32_t)k;
    }
    if (s == ZS_OK) s = upload_array(&op->chunk_ptr, cptr, (uint64_t)op->n_long + 1, "chunks");
    if (s == ZS_OK) s = upload_array(&op->chunk_long, owner, (uint64_t)op->n_chunks, "chunks");
    if (s == ZS_OK) s = check(gpuMalloc(&op->partial, (size_t)op->n_chunks * es), "partials");
    free(cptr), free(owner);
  }
  if (s == ZS_OK && op->vmode == 0) {
    s = dtans_upload_table(&op->vtab, v, "value_counts");
    if (s == ZS_OK) s = dtans_upload(&op->vsym, v, "value_symbols");
    if (s == ZS_OK) s = dtans_upload((void **)&op->slice_vesc, v, "slice_value_escapes");
    if (s == ZS_OK) s = dtans_upload(&op->vesc, v, "value_escapes");
  } else if (s == ZS_OK && op->vmode == 1) {
    const void *c = zsb_find_array(v, "value_symbols")->data;
    op->constant = v->type == ZS_F64 ? *(const double *)c : (double)*(const float *)c;
  } else if (s == ZS_OK) {
    s = dtans_upload(&op->raw, v, "values");
    /* Raw values are in decoding order: a slice's start at its first row's nonzero count. */
    int64_t *start = (int64_t *)malloc(((size_t)op->slices + 1) * sizeof(int64_t));
    if (!start) s = fail(ZS_ERR_OUT_OF_MEMORY, "dtans slice offsets");
    for (int64_t sl = 0, i = 0; s == ZS_OK && sl <= op->slices; sl++) {
      start[sl] = sl ? start[sl - 1] : 0;
      for (; sl > 0 && i < srows[sl]; i++) start[sl] += dtans_coded_len(row_nnz[i]);
    }
    if (s == ZS_OK) s = upload_array(&op->slice_raw, start, (uint64_t)op->slices + 1, "offsets");
    free(start);
  }
  if (s == ZS_OK && !atomic) op->host_row_ptr = row_ptr, row_ptr = NULL;
  free(row_ptr);
  if (s != ZS_OK) {
    dtans_gpu_destroy(op);
    return s;
  }
  *state = op;
  return ZS_OK;
}

template <typename T, int VMODE, int MODE>
zs_status dtans_launch(const dtans_gpu_op *op, const T *x, T *y, T alpha, T beta,
                       const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  if (op->slices == 0) return ZS_OK;
  auto kernel = zs_dtans_kernel<T, VMODE, MODE>;
  zs_status s = check(gpuFuncSetMaxDynamicShared(kernel, (int)op->smem), "dtans shared memory");
  int per_sm = 0;
  if (s == ZS_OK)
    s = check(
        gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, ZS_DT_THREADS, op->smem),
        "dtans occupancy");
  if (s != ZS_OK) return s;
  /* A persistent grid: each block loads the tables once and walks many slices. */
  const int64_t wpb = ZS_DT_THREADS / ZS_WARP_SIZE;
  const int64_t need = ((op->slices + ZS_DT_SUBS - 1) / ZS_DT_SUBS + wpb - 1) / wpb;
  int64_t grid = (int64_t)(per_sm > 0 ? per_sm : 1) * g_state.sm_count;
  if (grid > need) grid = need;
  zs_dt_args a;
  a.stream = op->stream, a.row_nnz = op->row_nnz, a.dtab = op->dtab, a.vtab = op->vtab;
  a.slice_words = op->slice_words, a.slice_desc = op->slice_desc, a.slice_vesc = op->slice_vesc;
  a.slice_raw = op->slice_raw, a.slice_rows = op->slice_rows, a.dsym = op->dsym, a.desc = op->desc;
  a.vsym = op->vsym, a.vesc = op->vesc, a.raw = op->raw, a.rows = op->rows, a.slices = op->slices;
  a.dreal = op->dreal, a.vreal = op->vreal;
  kernel<<<(unsigned)grid, ZS_DT_THREADS, op->smem>>>(a, (T)op->constant, x, y, alpha, beta,
                                                      row_ptr, out_col, out_val, op->stream_len);
  return check_launch("dtans kernel");
}

template <typename T, int MODE>
zs_status dtans_dispatch(const dtans_gpu_op *op, const T *x, T *y, T alpha, T beta,
                         const int64_t *row_ptr, int32_t *out_col, T *out_val) {
  if (op->n_long > 0) {
    const int64_t grid = op->n_chunks < 65535 ? op->n_chunks : 65535;
    zs_dtans_long_kernel<T, MODE><<<(unsigned)grid, ZS_DT_CHUNK_THREADS>>>(
        op->n_chunks, op->chunk_long, op->chunk_ptr, op->long_rows, op->long_ptr, op->long_cols,
        (const T *)op->long_values, x, y, alpha, (T *)op->partial, row_ptr, out_col, out_val);
    if (MODE == ZS_DT_SPMV)
      zs_dtans_long_fixup<T><<<grid_for(op->n_long, 256), 256>>>(
          op->n_long, op->long_rows, op->chunk_ptr, (const T *)op->partial, y, alpha, beta);
    zs_status s = check_launch("dtans long rows");
    if (s != ZS_OK) return s;
  }
  if (op->vmode == 0)
    return dtans_launch<T, 0, MODE>(op, x, y, alpha, beta, row_ptr, out_col, out_val);
  if (op->vmode == 1)
    return dtans_launch<T, 1, MODE>(op, x, y, alpha, beta, row_ptr, out_col, out_val);
  return dtans_launch<T, 2, MODE>(op, x, y, alpha, beta, row_ptr, out_col, out_val);
}

/* The deterministic SpMVT: decode once into CSR on the device and hand it to the CSR operator,
 * which builds its transpose index on first use (memory: CSR plus that index). */
template <typename T>
zs_status dtans_ensure_csr(dtans_gpu_op *op) {
  if (op->csr) return ZS_OK;
  int32_t *col = NULL;
  T *val = NULL;
  int64_t *row_ptr = NULL;
  const size_t n = (size_t)(op->nnz ? op->nnz : 1);
  zs_status s = check(gpuMalloc((void **)&col, n * 4), "dtans decoded columns");
  if (s == ZS_OK) s = check(gpuMalloc((void **)&val, n * sizeof(T)), "dtans decoded values");
  if (s == ZS_OK)
    s = upload_array(&row_ptr, op->host_row_ptr, (uint64_t)op->rows + 1, "dtans row offsets");
  if (s == ZS_OK)
    s = dtans_dispatch<T, ZS_DT_WRITE>(op, (const T *)NULL, (T *)NULL, T(0), T(0), row_ptr, col,
                                       val);
  if (s == ZS_OK) s = check(gpuDeviceSynchronize(), "dtans decode");
  release(row_ptr);
  if (s != ZS_OK) {
    release(col), release(val);
    return s;
  }
  return csr_op_adopt(&op->csr, op->type, op->rows, op->cols, op->nnz, op->host_row_ptr, col, val);
}

template <typename T>
zs_status dtans_apply_typed(dtans_gpu_op *op, zs_op which, T alpha, const T *x, T beta, T *y) {
  if (which == ZS_OP_N)
    return dtans_dispatch<T, ZS_DT_SPMV>(op, x, y, alpha, beta, NULL, NULL, NULL);
  if (!op->atomic) {
    zs_status s = dtans_ensure_csr<T>(op);
    if (s != ZS_OK) return s;
    return gpu_op_apply(NULL, op->csr, ZS_OP_T, (double)alpha, x, (double)beta, y);
  }
  zs_scale_kernel<T><<<grid_for(op->cols, 256), 256>>>(op->cols, beta, y);
  zs_status s = check_launch("dtans SpMVT scale");
  if (s == ZS_OK) s = dtans_dispatch<T, ZS_DT_SCATTER>(op, x, y, alpha, beta, NULL, NULL, NULL);
  return s;
}

zs_status dtans_gpu_apply(void *state, zs_op which, double alpha, const void *x, double beta,
                          void *y) {
  dtans_gpu_op *op = (dtans_gpu_op *)state;
  if (op->type == ZS_F64)
    return dtans_apply_typed<double>(op, which, alpha, (const double *)x, beta, (double *)y);
  return dtans_apply_typed<float>(op, which, (float)alpha, (const float *)x, (float)beta,
                                  (float *)y);
}

const gpu_format dtans_gpu_format = {ZS_FORMAT_DTANS, dtans_gpu_create, dtans_gpu_destroy,
                                     dtans_gpu_apply};
