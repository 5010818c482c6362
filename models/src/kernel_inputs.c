/* gmmu — input generators of the real kernels (gmmu/kernel_inputs.h,
 * docs/kernels.md). Each one makes its benchmark's data structure the way
 * the benchmark's own generator or host code does, at the sizes its
 * arguments give, and lays it out in the kernel's regions as the benchmark
 * lays it out on the device. */
#include "gmmu/kernel_inputs.h"

#include "gmmu/rng.h"
#include "kernel_inputs_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct arg_desc {
    const char *key;
    uint64_t def, lo, hi;
} arg_desc;

typedef struct gen_desc {
    const char *name;
    uint32_t nargs;
    arg_desc args[GMMU_INPUTS_MAX_ARGS];
    /* Cross-argument rule; a message into why (NULL: fine). */
    const char *(*rule)(const uint64_t *a);
    void (*layout)(const uint64_t *a, layout *l);
    gmmu_status (*fill)(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                        gmmu_error *err);
    bool slow; /* gmmu_inputs_slow */
} gen_desc;

/* ---- Zipf ------------------------------------------------------------------ */

/* zeta(n, theta) = sum over i = 1..n of i^-theta: exact up to 2^20 terms, the
 * rest by the midpoint rule's integral (relative error under 1e-12 there). */
static double zeta(uint64_t n, double theta)
{
    const uint64_t exact = n < (1ull << 20) ? n : (1ull << 20);
    double z = 0;
    for (uint64_t i = exact; i >= 1; i--) /* small terms first */
        z += pow((double)i, -theta);
    if (n > exact) {
        const double a = (double)exact + 0.5, b = (double)n + 0.5, e = 1.0 - theta;
        z += (pow(b, e) - pow(a, e)) / e;
    }
    return z;
}

gmmu_status gmmu_zipf_init(gmmu_zipf *z, uint64_t n, double theta, gmmu_error *err)
{
    if (!z)
        return gmmu_error_set(err, "zipf", "NULL generator");
    if (n < 2)
        return gmmu_error_set(err, "zipf.n", "%llu items: Zipf needs at least 2", (unsigned long long)n);
    if (!(theta > 0.0 && theta < 1.0))
        return gmmu_error_set(err, "zipf.theta", "theta %g outside (0, 1)", theta);
    z->n = n;
    z->theta = theta;
    z->alpha = 1.0 / (1.0 - theta);
    z->zetan = zeta(n, theta);
    const double zeta2 = 1.0 + pow(2.0, -theta);
    z->eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zeta2 / z->zetan);
    z->half_pow = 1.0 + pow(0.5, theta);
    return GMMU_OK;
}

uint64_t gmmu_zipf_draw(const gmmu_zipf *z, double u)
{
    const double uz = u * z->zetan;
    if (uz < 1.0)
        return 0;
    if (uz < z->half_pow)
        return 1;
    uint64_t r = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
    return r < z->n ? r : z->n - 1;
}

/* ---- kmeans (Rodinia) --------------------------------------------------------
 * Regions: 0 the features, feature-major as Rodinia's kernel reads them
 * (feature f of point p at word f * points + p); 1 the cluster centres
 * (centre c's feature f at word c * features + f); 2 the membership (one
 * word per point, written). Features are uniform in 0..65535 (Rodinia's
 * generator draws uniform values); the centres are copies of points drawn
 * at random, as Rodinia's kmeans_clustering picks its initial centres. */
enum { KM_POINTS, KM_FEATURES, KM_CLUSTERS };

static void kmeans_layout(const uint64_t *a, layout *l)
{
    l->n = 3;
    l->bytes[0] = a[KM_POINTS] * a[KM_FEATURES] * WORD;
    l->kind[0] = GMMU_REGION_INPUT;
    l->what[0] = "features (points x features words, feature-major)";
    l->bytes[1] = a[KM_CLUSTERS] * a[KM_FEATURES] * WORD;
    l->kind[1] = GMMU_REGION_INPUT;
    l->what[1] = "cluster centres (clusters x features words)";
    l->bytes[2] = a[KM_POINTS] * WORD;
    l->kind[2] = GMMU_REGION_OUTPUT;
    l->what[2] = "membership (a word per point)";
}

static gmmu_status kmeans_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                               gmmu_error *err)
{
    (void)k;
    (void)err;
    const uint64_t n = a[KM_POINTS], f = a[KM_FEATURES], c = a[KM_CLUSTERS];
    stream st = stream_of(seed, 0x6b6d65616e73ull);
    for (uint64_t i = 0; i < n * f; i++)
        w[0][i] = next64(&st) & 0xFFFFu;
    for (uint64_t j = 0; j < c; j++) {
        const uint64_t p = below(&st, n);
        for (uint64_t x = 0; x < f; x++)
            w[1][j * f + x] = w[0][x * n + p];
    }
    return GMMU_OK;
}

/* ---- streamcluster (Rodinia, pgain's kernel_compute_cost) -------------------
 * Regions: 0 the coordinates, dimension-major (coordinate d of point p at
 * word d * points + p); 1 the points, four words each (weight, the VA of
 * its first coordinate, assign, cost), as Rodinia's Point array; 2 the
 * centre table (a word per point: the open centre's index 0..centres-1 for
 * the points that are centres); 3 switch_membership (a word per point,
 * written); 4 the work memory (centres + 1 words per point, written).
 * Coordinates are uniform in 0..65535 (Rodinia's stream draws uniform
 * points); `centres` distinct points are the open centres; each point is
 * assigned to its nearest open centre, its cost the squared distance
 * times its weight (1), as pgain finds them after a pkmedian step. */
enum { SC_POINTS, SC_DIM, SC_CENTRES };

static void sc_layout(const uint64_t *a, layout *l)
{
    const uint64_t n = a[SC_POINTS];
    l->n = 5;
    l->bytes[0] = n * a[SC_DIM] * WORD;
    l->what[0] = "coordinates (points x dim words, dimension-major)";
    l->bytes[1] = n * 4 * WORD;
    l->what[1] = "points (weight, coordinates, assign, cost: 4 words each)";
    l->bytes[2] = n * WORD;
    l->what[2] = "centre table (a word per point)";
    l->bytes[3] = n * WORD;
    l->what[3] = "switch_membership (a word per point)";
    l->bytes[4] = n * (a[SC_CENTRES] + 1) * WORD;
    l->what[4] = "work memory (centres + 1 words per point)";
    for (unsigned r = 0; r < 5; r++)
        l->kind[r] = r < 3 ? GMMU_REGION_INPUT : GMMU_REGION_OUTPUT;
}

static const char *sc_rule(const uint64_t *a)
{
    return a[SC_CENTRES] > a[SC_POINTS] ? "centres must not exceed points" : NULL;
}

static gmmu_status sc_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                           gmmu_error *err)
{
    const uint64_t n = a[SC_POINTS], dim = a[SC_DIM], nc = a[SC_CENTRES];
    stream st = stream_of(seed, 0x73636c7573746572ull);
    for (uint64_t i = 0; i < n * dim; i++)
        w[0][i] = next64(&st) & 0xFFFFu;
    uint64_t *centre = malloc(nc * sizeof *centre);
    uint64_t *best = malloc(n * sizeof *best);
    uint64_t *dist = malloc(n * sizeof *dist);
    if (!centre || !best || !dist) {
        free(centre);
        free(best);
        free(dist);
        return gmmu_error_set(err, "kernel.inputs", "streamcluster: out of memory");
    }
    for (uint64_t j = 0; j < nc; j++) { /* distinct points */
        bool again;
        do {
            centre[j] = below(&st, n);
            again = false;
            for (uint64_t i = 0; i < j; i++)
                again |= centre[i] == centre[j];
        } while (again);
        w[2][centre[j]] = j;
    }
    /* Nearest centre: dimension by dimension over contiguous points. */
    for (uint64_t p = 0; p < n; p++)
        best[p] = UINT64_MAX;
    for (uint64_t j = 0; j < nc; j++) {
        memset(dist, 0, n * sizeof *dist);
        for (uint64_t d = 0; d < dim; d++) {
            const uint64_t *row = &w[0][d * n];
            const int64_t cv = (int64_t)row[centre[j]];
            for (uint64_t p = 0; p < n; p++) {
                const int64_t df = (int64_t)row[p] - cv;
                dist[p] += (uint64_t)(df * df);
            }
        }
        for (uint64_t p = 0; p < n; p++)
            if (dist[p] < best[p]) {
                best[p] = dist[p];
                w[1][4 * p + 2] = centre[j];
            }
    }
    const uint64_t base0 = k->region[0].base;
    for (uint64_t p = 0; p < n; p++) {
        w[1][4 * p + 0] = 1;                /* weight */
        w[1][4 * p + 1] = base0 + p * WORD; /* its first coordinate */
        w[1][4 * p + 3] = best[p];          /* cost = distance x weight */
    }
    free(centre);
    free(best);
    free(dist);
    return GMMU_OK;
}

/* ---- memcached (GETs over a chained hash table) -----------------------------
 * Regions: 0 the buckets (a word each: the VA of the chain's first item,
 * 0 for none); 1 the items, 64 bytes each (key, the VA of the next item in
 * the chain, six value words) in slab slots of a random permutation, as a
 * slab allocator scatters them; 2 the requests (a key per word); 3 the
 * results (a word per request, written). An item's bucket is the low bits
 * of mix64(key) (the kernel's sfu with immediate 0); items are inserted at
 * their chain's head in key order, as memcached inserts. Request keys
 * follow a Zipf(theta/1000) popularity over the items, rank r the item
 * mix64(r ^ salt) mod items (YCSB's scrambled Zipfian). */
enum { MC_ITEMS, MC_BUCKETS, MC_REQUESTS, MC_THETA };

static void mc_layout(const uint64_t *a, layout *l)
{
    l->n = 4;
    l->bytes[0] = a[MC_BUCKETS] * WORD;
    l->kind[0] = GMMU_REGION_INPUT;
    l->what[0] = "buckets (a word each)";
    l->bytes[1] = a[MC_ITEMS] * 8 * WORD;
    l->kind[1] = GMMU_REGION_INPUT;
    l->what[1] = "items (64 bytes each)";
    l->bytes[2] = a[MC_REQUESTS] * WORD;
    l->kind[2] = GMMU_REGION_INPUT;
    l->what[2] = "requests (a key per word)";
    l->bytes[3] = a[MC_REQUESTS] * WORD;
    l->kind[3] = GMMU_REGION_OUTPUT;
    l->what[3] = "results (a word per request)";
}

static const char *mc_rule(const uint64_t *a)
{
    return (a[MC_BUCKETS] & (a[MC_BUCKETS] - 1)) ? "buckets must be a power of two" : NULL;
}

static uint64_t mc_key(uint64_t seed, uint64_t i) { return gmmu_mix64(i ^ gmmu_mix64(seed ^ 0x6d656d63ull)); }

static gmmu_status mc_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                           gmmu_error *err)
{
    const uint64_t n = a[MC_ITEMS], nb = a[MC_BUCKETS], nr = a[MC_REQUESTS];
    stream st = stream_of(seed, 0x6d656d6361636865ull);
    uint32_t *slot = malloc(n * sizeof *slot);
    if (!slot)
        return gmmu_error_set(err, "kernel.inputs", "memcached: out of memory");
    for (uint64_t i = 0; i < n; i++)
        slot[i] = (uint32_t)i;
    for (uint64_t i = n; i > 1; i--) { /* Fisher-Yates */
        const uint64_t j = below(&st, i);
        const uint32_t t = slot[i - 1];
        slot[i - 1] = slot[j];
        slot[j] = t;
    }
    const uint64_t items = k->region[1].base;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t key = mc_key(seed, i), s = slot[i], b = gmmu_mix64(key) & (nb - 1);
        uint64_t *it = &w[1][s * 8];
        it[0] = key;
        it[1] = w[0][b]; /* the old head */
        for (unsigned v = 0; v < 6; v++)
            it[2 + v] = gmmu_mix64(key ^ (v + 1));
        w[0][b] = items + s * 64;
    }
    free(slot);
    gmmu_zipf z;
    gmmu_status s = gmmu_zipf_init(&z, n, (double)a[MC_THETA] / 1000.0, err);
    if (s != GMMU_OK)
        return s;
    const uint64_t scramble = gmmu_mix64(seed ^ 0x7363726d626cull);
    for (uint64_t r = 0; r < nr; r++) {
        const uint64_t rank = gmmu_zipf_draw(&z, unit(&st));
        w[2][r] = mc_key(seed, gmmu_mix64(rank ^ scramble) % n);
    }
    return GMMU_OK;
}

/* ---- pathfinder (Rodinia) ------------------------------------------------------
 * Regions: 0 the wall below the first row ((rows - 1) x cols words,
 * row-major: Rodinia's gpuWall); 1 the first row (cols words: gpuSrc of the
 * first launch, the wall's row 0); 2 the result row (cols words, written).
 * Every cell is uniform in 0..9, as Rodinia's init draws rand() % 10. */
enum { PF_COLS, PF_ROWS };

static void pf_layout(const uint64_t *a, layout *l)
{
    l->n = 3;
    l->bytes[0] = (a[PF_ROWS] - 1) * a[PF_COLS] * WORD;
    l->kind[0] = GMMU_REGION_INPUT;
    l->what[0] = "the wall below row 0 ((rows - 1) x cols words)";
    l->bytes[1] = a[PF_COLS] * WORD;
    l->kind[1] = GMMU_REGION_INPUT;
    l->what[1] = "row 0 (cols words)";
    l->bytes[2] = a[PF_COLS] * WORD;
    l->kind[2] = GMMU_REGION_OUTPUT;
    l->what[2] = "the result row (cols words)";
}

static gmmu_status pf_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                           gmmu_error *err)
{
    (void)k;
    (void)err;
    const uint64_t cols = a[PF_COLS], rows = a[PF_ROWS];
    stream st = stream_of(seed, 0x70617468ull);
    for (uint64_t c = 0; c < cols; c++) /* row 0 first, as Rodinia's init */
        w[1][c] = below(&st, 10);
    for (uint64_t i = 0; i < (rows - 1) * cols; i++)
        w[0][i] = below(&st, 10);
    return GMMU_OK;
}

/* ---- bfs (Rodinia, over a graph made as Rodinia's graphgen makes it) --------
 * graphgen: every node i draws 2..4 edges (uniform), each to a uniformly
 * random node d, and each draw adds i -> d and d -> i, so the mean degree
 * is 6 and every list holds its entries in the order they were added.
 * Regions, as Rodinia's bfs.cu keeps them on the device (8-byte words for
 * its ints and bools): 0 the nodes, two words each (the first edge's index,
 * the number of edges); 1 the edges (a node id each); 2 the frontier mask;
 * 3 the updating mask (written); 4 visited; 5 the cost (-1, 0 at the
 * source); 6 the stop flag (written). The source is a node drawn after the
 * graph, as graphgen draws one. The edge region has room for 8 x nodes
 * edges where the lists need 6 x nodes on average; a graph that needs more
 * is refused (at a million nodes and more that is many standard deviations
 * away). */
enum { BFS_NODES };

static void bfs_layout(const uint64_t *a, layout *l)
{
    const uint64_t n = a[BFS_NODES];
    static const char *const what[7] = {
        "nodes (first edge, edge count: 2 words each)", "edges (a node id each, room for 8 per node)",
        "the frontier mask (a word per node)", "the updating mask (a word per node)",
        "visited (a word per node)", "the cost (a word per node)", "the stop flag (one word)"};
    l->n = 7;
    for (unsigned r = 0; r < 7; r++) {
        l->bytes[r] = n * WORD;
        l->kind[r] = (r == 3 || r == 6) ? GMMU_REGION_OUTPUT : GMMU_REGION_INPUT;
        l->what[r] = what[r];
    }
    l->bytes[0] = 2 * n * WORD;
    l->bytes[1] = 8 * n * WORD;
    l->bytes[6] = WORD;
}

static uint32_t bfs_draws(stream *st) { return 2u + (uint32_t)below(st, 3); }

static gmmu_status bfs_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                            gmmu_error *err)
{
    (void)k;
    const uint64_t n = a[BFS_NODES];
    /* Pass 1: the degrees; pass 2 replays the same draws into the lists. */
    stream st = stream_of(seed, 0x6266736772617068ull);
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t d = bfs_draws(&st);
        for (uint32_t j = 0; j < d; j++) {
            w[0][2 * i + 1]++;
            w[0][2 * below(&st, n) + 1]++;
        }
    }
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i++) {
        w[0][2 * i] = total;
        total += w[0][2 * i + 1];
    }
    if (total > 8 * n)
        return gmmu_error_set(err, "kernel.inputs", "bfs: the graph has %llu edges, more than the region's %llu",
                              (unsigned long long)total, (unsigned long long)(8 * n));
    uint64_t *fill = calloc(n, sizeof *fill);
    if (!fill)
        return gmmu_error_set(err, "kernel.inputs", "bfs: out of memory");
    st = stream_of(seed, 0x6266736772617068ull);
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t d = bfs_draws(&st);
        for (uint32_t j = 0; j < d; j++) {
            const uint64_t dst = below(&st, n);
            w[1][w[0][2 * i] + fill[i]++] = dst;
            w[1][w[0][2 * dst] + fill[dst]++] = i;
        }
    }
    free(fill);
    const uint64_t src = below(&st, n);
    for (uint64_t i = 0; i < n; i++)
        w[5][i] = UINT64_MAX; /* -1 */
    w[2][src] = 1;
    w[4][src] = 1;
    w[5][src] = 0;
    return GMMU_OK;
}

/* ---- hotspot (Rodinia; PICLE's) ---------------------------------------------
 * Regions: 0 the temperatures (rows x cols words, row-major: temp_src of
 * the first launch), 1 the power (the same shape), 2 the result
 * (temp_dst, written). Rodinia reads its grids from files (made larger by
 * tiling smaller ones); here temperatures are uniform in 323000..342999
 * (millikelvin: Rodinia's are 323-343 K) and power in 0..999. No branch of
 * the kernel depends on the values. */
enum { HS_ROWS, HS_COLS };

static void hs_layout(const uint64_t *a, layout *l)
{
    static const char *const what[3] = {"the temperatures (rows x cols words)", "the power (rows x cols words)",
                                         "the result (rows x cols words)"};
    l->n = 3;
    for (unsigned r = 0; r < 3; r++) {
        l->bytes[r] = a[HS_ROWS] * a[HS_COLS] * WORD;
        l->kind[r] = r < 2 ? GMMU_REGION_INPUT : GMMU_REGION_OUTPUT;
        l->what[r] = what[r];
    }
}

static gmmu_status hs_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                           gmmu_error *err)
{
    (void)k;
    (void)err;
    const uint64_t n = a[HS_ROWS] * a[HS_COLS];
    stream st = stream_of(seed, 0x686f7473706f74ull);
    for (uint64_t i = 0; i < n; i++)
        w[0][i] = 323000 + below(&st, 20000);
    for (uint64_t i = 0; i < n; i++)
        w[1][i] = below(&st, 1000);
    return GMMU_OK;
}

/* ---- backprop (Rodinia; PICLE's) ---------------------------------------------
 * A 16-unit hidden layer (the kernels' 16 x 16 blocks fix it). Regions: 0
 * the input units (inputs + 1 words; unit 0 is the bias), 1 the
 * input-to-hidden weights ((inputs + 1) x 17 words, row-major as Rodinia's
 * flattened array), 2 the hidden partial sums (a word per block and hidden
 * unit, written), 3 the hidden deltas (17 words), 4 the previous weight
 * changes ((inputs + 1) x 17 words, zero: written by the second kernel).
 * Rodinia draws units and weights at random (bpnn_randomize_*); here they
 * are uniform in 0..65535. The deltas are what Rodinia's host computes
 * between the two launches (the hidden layer's error); the program runs
 * the launches back to back, so they are drawn here too. No branch depends
 * on any value. */
enum { BP_INPUTS };

static void bp_layout(const uint64_t *a, layout *l)
{
    const uint64_t n = a[BP_INPUTS];
    static const char *const what[5] = {"the input units (inputs + 1 words)",
                                         "the input-to-hidden weights ((inputs + 1) x 17 words)",
                                         "the hidden partial sums (inputs words: 16 per block)",
                                         "the hidden deltas (17 words)",
                                         "the previous weight changes ((inputs + 1) x 17 words)"};
    l->n = 5;
    l->bytes[0] = (n + 1) * WORD;
    l->bytes[1] = (n + 1) * 17 * WORD;
    l->bytes[2] = n * WORD;
    l->bytes[3] = 17 * WORD;
    l->bytes[4] = (n + 1) * 17 * WORD;
    for (unsigned r = 0; r < 5; r++) {
        l->kind[r] = (r == 2 || r == 4) ? GMMU_REGION_OUTPUT : GMMU_REGION_INPUT;
        l->what[r] = what[r];
    }
}

static const char *bp_rule(const uint64_t *a)
{
    return a[BP_INPUTS] % 16 ? "inputs must be a multiple of 16 (one block per 16 input units)" : NULL;
}

static gmmu_status bp_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                           gmmu_error *err)
{
    (void)k;
    (void)err;
    const uint64_t n = a[BP_INPUTS];
    stream st = stream_of(seed, 0x6261636b70726f70ull);
    for (uint64_t i = 0; i <= n; i++)
        w[0][i] = next64(&st) & 0xFFFFu;
    for (uint64_t i = 0; i < (n + 1) * 17; i++)
        w[1][i] = next64(&st) & 0xFFFFu;
    for (uint64_t i = 0; i < 17; i++)
        w[3][i] = next64(&st) & 0xFFFFu;
    return GMMU_OK;
}

/* ---- lud (Rodinia; PICLE's) --------------------------------------------------
 * Region 0: the matrix (dim x dim words, row-major), factored in place.
 * Rodinia's create_matrix makes a diagonally dominant matrix so that the
 * factorisation needs no pivoting; here off-diagonal entries are uniform in
 * 0..65535 and the diagonal adds 2^20 (the kernels' integer stand-in for
 * the division by the pivot makes no branch depend on a value). */
enum { LUD_DIM };

static void lud_layout(const uint64_t *a, layout *l)
{
    l->n = 1;
    l->bytes[0] = a[LUD_DIM] * a[LUD_DIM] * WORD;
    l->kind[0] = GMMU_REGION_INPUT;
    l->what[0] = "the matrix (dim x dim words)";
}

static const char *lud_rule(const uint64_t *a)
{
    return a[LUD_DIM] % 16 ? "dim must be a multiple of 16 (BLOCK_SIZE)" : NULL;
}

static gmmu_status lud_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                            gmmu_error *err)
{
    (void)k;
    (void)err;
    const uint64_t n = a[LUD_DIM];
    stream st = stream_of(seed, 0x6c75642d6d6174ull);
    for (uint64_t r = 0; r < n; r++)
        for (uint64_t c = 0; c < n; c++)
            w[0][r * n + c] = (next64(&st) & 0xFFFFu) + (r == c ? (1u << 20) : 0u);
    return GMMU_OK;
}

/* ---- the table ------------------------------------------------------------------ */

static const gen_desc GENS[] = {
    {"kmeans", 3,
     {{"points", 4194304, 1, 1ull << 31}, {"features", 34, 1, 1024}, {"clusters", 5, 1, 1024}},
     NULL, kmeans_layout, kmeans_fill, false},
    {"streamcluster", 3,
     {{"points", 524288, 1, 1ull << 31}, {"dim", 256, 1, 4096}, {"centres", 20, 1, 1024}},
     sc_rule, sc_layout, sc_fill, true},
    {"memcached", 4,
     {{"items", 16777216, 2, 1ull << 31},
      {"buckets", 16777216, 1, 1ull << 31},
      {"requests", 1048576, 1, 1ull << 31},
      {"theta_milli", 990, 1, 999}},
     mc_rule, mc_layout, mc_fill, true},
    {"pathfinder", 2, {{"cols", 1048576, 1, 1ull << 31}, {"rows", 160, 2, 1ull << 20}}, NULL, pf_layout,
     pf_fill, false},
    {"bfs", 1, {{"nodes", 12582912, 20, 1ull << 30}}, NULL, bfs_layout, bfs_fill, false},
    {"hotspot", 2, {{"rows", 8192, 1, 1u << 20}, {"cols", 8192, 1, 1u << 20}}, NULL, hs_layout, hs_fill, false},
    {"backprop", 1, {{"inputs", 4194304, 16, 1u << 28}}, bp_rule, bp_layout, bp_fill, false},
    {"mummergpu", MUM_NARGS,
     {{"ref", 16777216, 64, 1ull << 26},
      {"reads", 131072, 1, 1ull << 24},
      {"read_len", 100, 2, 4096},
      {"error_permille", 10, 0, 1000},
      {"min_match", 20, 1, 4095},
      {"wide_depth", 16, 0, 1024}},
     mummer_rule, mummer_layout, mummer_fill, true},
    {"lud", 1, {{"dim", 12288, 32, 1u << 17}}, lud_rule, lud_layout, lud_fill, false},
};
#define NGENS (sizeof GENS / sizeof GENS[0])

unsigned gmmu_inputs_count(void) { return (unsigned)NGENS; }

const char *gmmu_inputs_name(unsigned i) { return i < NGENS ? GENS[i].name : NULL; }

bool gmmu_inputs_slow(unsigned i) { return i < NGENS && GENS[i].slow; }

static const gen_desc *gen_of(const gmmu_kernel *k)
{
    return k && k->inputs.gen >= 1 && k->inputs.gen <= NGENS ? &GENS[k->inputs.gen - 1] : NULL;
}

static bool parse_value(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        return false;
    *out = v;
    return true;
}

gmmu_status gmmu_kernel_inputs_set(gmmu_kernel *k, const char *const *tok, unsigned ntok, gmmu_error *err)
{
    if (!k || !tok || ntok == 0 || !tok[0])
        return gmmu_error_set(err, "kernel.inputs", "'inputs GENERATOR [key=value ...]'");
    const gen_desc *g = NULL;
    for (unsigned i = 0; i < NGENS; i++)
        if (strcmp(GENS[i].name, tok[0]) == 0) {
            g = &GENS[i];
            k->inputs.gen = i + 1;
        }
    if (!g)
        return gmmu_error_set(err, "kernel.inputs",
                              "unknown input generator '%.40s' (kmeans, streamcluster, memcached, "
                              "pathfinder, bfs, hotspot, backprop, mummergpu, lud)", tok[0]);
    bool given[GMMU_INPUTS_MAX_ARGS] = {false};
    for (unsigned a = 0; a < g->nargs; a++)
        k->inputs.arg[a] = g->args[a].def;
    for (unsigned t = 1; t < ntok; t++) {
        const char *eq = tok[t] ? strchr(tok[t], '=') : NULL;
        if (!eq)
            return gmmu_error_set(err, "kernel.inputs", "'%.40s' is not key=value", tok[t] ? tok[t] : "");
        const size_t kl = (size_t)(eq - tok[t]);
        int which = -1;
        for (unsigned a = 0; a < g->nargs; a++)
            if (strlen(g->args[a].key) == kl && strncmp(g->args[a].key, tok[t], kl) == 0)
                which = (int)a;
        if (which < 0)
            return gmmu_error_set(err, "kernel.inputs", "%s has no argument '%.*s'", g->name,
                                  (int)(kl < 40 ? kl : 40), tok[t]);
        const arg_desc *d = &g->args[which];
        uint64_t v = 0;
        if (given[which])
            return gmmu_error_set(err, "kernel.inputs", "%s: '%s' given twice", g->name, d->key);
        if (!parse_value(eq + 1, &v) || v < d->lo || v > d->hi)
            return gmmu_error_set(err, "kernel.inputs", "%s: '%s' needs a number %llu..%llu, got '%.40s'",
                                  g->name, d->key, (unsigned long long)d->lo, (unsigned long long)d->hi,
                                  eq + 1);
        given[which] = true;
        k->inputs.arg[which] = v;
    }
    const char *why = g->rule ? g->rule(k->inputs.arg) : NULL;
    if (why)
        return gmmu_error_set(err, "kernel.inputs", "%s: %s", g->name, why);
    return GMMU_OK;
}

uint64_t gmmu_kernel_inputs_arg(const gmmu_kernel *k, const char *key)
{
    const gen_desc *g = gen_of(k);
    if (!g || !key)
        return 0;
    for (unsigned a = 0; a < g->nargs; a++)
        if (strcmp(g->args[a].key, key) == 0)
            return k->inputs.arg[a];
    return 0;
}

gmmu_status gmmu_kernel_inputs_check(const gmmu_kernel *k, gmmu_error *err)
{
    if (!k)
        return gmmu_error_set(err, "kernel.inputs", "kernel is NULL");
    if (k->inputs.gen == 0)
        return GMMU_OK;
    const gen_desc *g = gen_of(k);
    if (!g)
        return gmmu_error_set(err, "kernel.inputs", "input generator %u unknown", k->inputs.gen);
    layout l;
    memset(&l, 0, sizeof l);
    g->layout(k->inputs.arg, &l);
    if (k->nregions != l.n)
        return gmmu_error_set(err, "kernel.inputs", "%s lays out %u regions; the kernel declares %u", g->name,
                              l.n, k->nregions);
    for (uint32_t r = 0; r < l.n; r++) {
        const uint64_t need = (l.bytes[r] + 0xFFFFull) & ~0xFFFFull;
        if (k->region[r].kind != l.kind[r] || k->region[r].bytes != need)
            return gmmu_error_set(err, "kernel.inputs", "%s: region %u holds the %s: region %s %llu",
                                  g->name, r, l.what[r], l.kind[r] == GMMU_REGION_INPUT ? "input" : "output",
                                  (unsigned long long)l.bytes[r]);
    }
    return GMMU_OK;
}

gmmu_status gmmu_kernel_inputs_fill(const gmmu_kernel *k, uint64_t seed, uint64_t *const *words,
                                    gmmu_error *err)
{
    gmmu_status s = gmmu_kernel_inputs_check(k, err);
    if (s != GMMU_OK)
        return s;
    const gen_desc *g = gen_of(k);
    if (!g)
        return GMMU_OK;
    if (!words)
        return gmmu_error_set(err, "kernel.inputs", "no region words");
    for (uint32_t r = 0; r < k->nregions; r++)
        if (!words[r])
            return gmmu_error_set(err, "kernel.inputs", "region %u has no words", r);
    return g->fill(k->inputs.arg, seed, k, words, err);
}
