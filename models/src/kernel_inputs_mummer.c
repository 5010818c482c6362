/* gmmu — the mummergpu input generator (docs/kernels.md): a suffix tree of
 * a random DNA reference, laid out in two "textures" as MUMmerGPU lays it
 * out (Schatz et al., BMC Bioinformatics 2007 8:474, figure 5; Rodinia's
 * mummergpu with its defaults REORDER_TREE and RENUMBER_TREE), and reads
 * sampled from the reference with substitution errors.
 *
 * The reference string is MUMmerGPU's: 's', the bases, '$' (so positions
 * 1..ref are the bases and an edge label [start, end] indexes this string).
 * Characters are one per 8-byte word, as codes: 0 the end of a query ('\0'),
 * 1..4 A C G T, 5 '$', 6 's', 7 the 'q' that starts every query.
 *
 * Node numbering (MUMmerGPU's renumberTree): breadth first from the root
 * (id 1; id 0 is the NULL node) while a node's tree depth is under
 * wide_depth (16 in MUMmerGPU), so the nodes near the root are numbered
 * level by level ("wide" blocks); a node dequeued deeper numbers its
 * subtree four levels down in preorder and queues the fifth level ("tall"
 * blocks of one subtree). Ids to texels (MUMmerGPU's id2addr, 32 x 32
 * blocks): bigx = id & 0x1FFFF, bigy = id >> 17, y = bigy * 32 + (bigx &
 * 31), x = bigx >> 5: 32 consecutive ids run down one column of a 32-row
 * stripe, the next 32 down the next column, 1024 ids to a 32 x 32 block. A
 * node's address in a child link is x | y << 16, as the kernel's
 * TextureAddress. The texture is 4096 pixels wide (MAX_TEXTURE_DIMENSION)
 * and its texel (x, y) is at byte (y * 4096 + x) * 16 of the region,
 * row-major: the hardware's texture layout is not modelled, the linear
 * addresses of the same rows and columns are.
 *
 * Pixels are 16 bytes, as MUMmerGPU's (two words):
 *   node:     word 0 start | end << 32 (the edge into the node, inclusive);
 *             word 1 suffix link | parent << 32 (addresses; 0 for a leaf's
 *             suffix link). MUMmerGPU also packs the node's string depth,
 *             which only its host-side printing reads: left out.
 *   children: word 0 A | C << 32, word 1 G | T << 32 (addresses, 0: none).
 *             MUMmerGPU's fifth link ('$') and a leaf's id are left out: the
 *             kernel follows only A C G T.
 * The tree is built by Ukkonen's algorithm, O(n) time. MUMmerGPU splits a
 * reference longer than 8 Mbp into several trees (its textures were at most
 * 4096 x 4096); here one tree holds the whole reference and the texture
 * has as many rows as it needs. */
#include "kernel_inputs_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEX_WIDTH 4096u      /* MAX_TEXTURE_DIMENSION */
#define PIXEL_BYTES 16u      /* a uint4 texel */
#define STRIPE_IDS (1u << 17) /* ids in a 32-row stripe: 4096 x 32 */
#define NSLOT 6u             /* children of the builder: A C G T $ s */
#define LEAF 0x80000000u     /* a node reference with this bit is leaf (suffix) j */

enum { CH_END = 0, CH_A = 1, CH_T = 4, CH_DOLLAR = 5, CH_S = 6, CH_Q = 7 };

/* The bound on the tree's ids (nodes + the NULL id 0) that sizes the
 * textures. A text of m characters has m leaves and at most m - 1 internal
 * nodes, but a uniformly random DNA text has about 0.62 m internal nodes
 * (measured: 0.622-0.623 at 10^4, 10^6 and 1.7 x 10^7 bases): sizing for the
 * worst case would leave a sixth of every texture unused. The bound is
 * 0.66 m plus a margin for small texts; a tree over it is refused at fill
 * (many standard deviations away for a random reference). */
static uint64_t max_ids(uint64_t ref)
{
    const uint64_t m = ref + 2;
    return m + (m * 66) / 100 + 4096;
}

static uint64_t tex_bytes(uint64_t ref)
{
    const uint64_t stripes = (max_ids(ref) + STRIPE_IDS - 1) / STRIPE_IDS;
    return stripes * 32u * TEX_WIDTH * PIXEL_BYTES;
}

const char *mummer_rule(const uint64_t *a)
{
    if (a[MUM_READ_LEN] > a[MUM_REF])
        return "read_len must not exceed ref";
    if (a[MUM_MIN_MATCH] >= a[MUM_READ_LEN])
        return "min_match must be under read_len";
    return NULL;
}

void mummer_layout(const uint64_t *a, layout *l)
{
    const uint64_t reads = a[MUM_READS], len = a[MUM_READ_LEN];
    static const char *const what[7] = {
        "node texture (4096 x 16-byte texels a row, 32-row stripes)",
        "children texture (4096 x 16-byte texels a row, 32-row stripes)",
        "reference ('s', ref bases, '$', '\\0': a word each)",
        "queries ('q', read_len bases, '\\0': a word each, per read)",
        "query addresses (a word per read)",
        "query lengths (a word per read)",
        "match coordinates (read_len - min_match + 1 words per read)"};
    l->n = 7;
    l->bytes[0] = tex_bytes(a[MUM_REF]);
    l->bytes[1] = tex_bytes(a[MUM_REF]);
    l->bytes[2] = (a[MUM_REF] + 3) * WORD;
    l->bytes[3] = reads * (len + 2) * WORD;
    l->bytes[4] = reads * WORD;
    l->bytes[5] = reads * WORD;
    l->bytes[6] = reads * (len - a[MUM_MIN_MATCH] + 1) * WORD;
    for (unsigned r = 0; r < 7; r++) {
        l->kind[r] = r < 6 ? GMMU_REGION_INPUT : GMMU_REGION_OUTPUT;
        l->what[r] = what[r];
    }
}

/* ---- Ukkonen's algorithm ---------------------------------------------------
 * Internal nodes 0..ni-1 (0 the root) keep their edge [start, end) and
 * suffix link; leaves are the text's suffixes, leaf j's edge [lstart[j],
 * m). A child reference is an internal node's index, or LEAF | j; 0 (the
 * root, never a child) is "none". */
typedef struct stree {
    const uint8_t *t;
    uint32_t m, ni;
    uint32_t *istart, *iend, *ilink, *child; /* child: NSLOT per internal node */
    uint32_t *lstart;
} stree;

static void stree_free(stree *s)
{
    free(s->istart);
    free(s->iend);
    free(s->ilink);
    free(s->child);
    free(s->lstart);
}

static uint32_t edge_start(const stree *s, uint32_t v) { return v & LEAF ? s->lstart[v & ~LEAF] : s->istart[v]; }

static bool stree_build(stree *s, const uint8_t *t, uint32_t m)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->m = m;
    /* m leaves, at most m - 1 internal nodes with the root. */
    s->istart = malloc((size_t)m * sizeof *s->istart);
    s->iend = malloc((size_t)m * sizeof *s->iend);
    s->ilink = calloc((size_t)m, sizeof *s->ilink);
    s->child = calloc((size_t)m * NSLOT, sizeof *s->child);
    s->lstart = malloc((size_t)m * sizeof *s->lstart);
    if (!s->istart || !s->iend || !s->ilink || !s->child || !s->lstart) {
        stree_free(s);
        return false;
    }
    s->istart[0] = s->iend[0] = 0;
    s->ni = 1;
    uint32_t anode = 0, aedge = 0, alen = 0, remainder = 0;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t need = UINT32_MAX; /* the internal node waiting for its suffix link */
        remainder++;
        while (remainder > 0) {
            if (alen == 0)
                aedge = i;
            const uint32_t slot = t[aedge] - 1u;
            const uint32_t nx = s->child[(size_t)anode * NSLOT + slot];
            if (nx == 0) {
                const uint32_t j = i - remainder + 1;
                s->lstart[j] = i;
                s->child[(size_t)anode * NSLOT + slot] = LEAF | j;
                if (need != UINT32_MAX)
                    s->ilink[need] = anode;
                need = anode;
            } else {
                const uint32_t st = edge_start(s, nx);
                const uint32_t len = (nx & LEAF ? i + 1 : s->iend[nx]) - st;
                if (alen >= len) { /* walk down: the active point is below nx */
                    aedge += len;
                    alen -= len;
                    anode = nx;
                    continue;
                }
                if (t[st + alen] == t[i]) { /* already there: the phase ends */
                    if (need != UINT32_MAX)
                        s->ilink[need] = anode;
                    alen++;
                    break;
                }
                const uint32_t split = s->ni++;
                s->istart[split] = st;
                s->iend[split] = st + alen;
                s->child[(size_t)anode * NSLOT + slot] = split;
                const uint32_t j = i - remainder + 1;
                s->lstart[j] = i;
                s->child[(size_t)split * NSLOT + t[i] - 1u] = LEAF | j;
                if (nx & LEAF)
                    s->lstart[nx & ~LEAF] = st + alen;
                else
                    s->istart[nx] = st + alen;
                s->child[(size_t)split * NSLOT + t[st + alen] - 1u] = nx;
                if (need != UINT32_MAX)
                    s->ilink[need] = split;
                need = split;
            }
            remainder--;
            if (anode == 0 && alen > 0) {
                alen--;
                aedge = i - remainder + 1;
            } else {
                anode = s->ilink[anode]; /* 0: the root */
            }
        }
    }
    s->ilink[0] = 0; /* the root's suffix link is the root */
    return true;
}

/* ---- MUMmerGPU's numbering -------------------------------------------------- */

typedef struct numbering {
    const stree *s;
    uint32_t *iid, *lid; /* ids of internal nodes and leaves */
    uint32_t *qnode, *qdepth;
    uint64_t qhead, qtail, count;
} numbering;

static uint32_t *id_of(numbering *nb, uint32_t v) { return v & LEAF ? &nb->lid[v & ~LEAF] : &nb->iid[v]; }

static void push(numbering *nb, uint32_t v, uint32_t depth)
{
    nb->qnode[nb->qtail] = v;
    nb->qdepth[nb->qtail++] = depth;
}

/* renumberTree's inner loops: u's descendants `level` levels down (1..4)
 * take the next ids in preorder; the fifth level is queued. */
static void number_tall(numbering *nb, uint32_t u, unsigned level, uint32_t depth)
{
    if (u & LEAF)
        return;
    for (uint32_t c = 0; c < NSLOT; c++) {
        const uint32_t v = nb->s->child[(size_t)u * NSLOT + c];
        if (!v)
            continue;
        *id_of(nb, v) = (uint32_t)++nb->count;
        if (level < 4) {
            number_tall(nb, v, level + 1, depth);
        } else if (!(v & LEAF)) {
            for (uint32_t g = 0; g < NSLOT; g++) {
                const uint32_t w = nb->s->child[(size_t)v * NSLOT + g];
                if (w)
                    push(nb, w, depth + 5);
            }
        }
    }
}

static void number_tree(numbering *nb, uint32_t wide_depth)
{
    nb->qhead = nb->qtail = nb->count = 0;
    push(nb, 0, 0);
    while (nb->qhead < nb->qtail) {
        const uint32_t u = nb->qnode[nb->qhead], depth = nb->qdepth[nb->qhead];
        nb->qhead++;
        *id_of(nb, u) = (uint32_t)++nb->count;
        if (u & LEAF)
            continue;
        if (depth < wide_depth) {
            for (uint32_t c = 0; c < NSLOT; c++) {
                const uint32_t v = nb->s->child[(size_t)u * NSLOT + c];
                if (v)
                    push(nb, v, depth + 1);
            }
        } else {
            number_tall(nb, u, 1, depth);
        }
    }
}

/* MUMmerGPU's id2addr: x | y << 16. */
static uint64_t addr_of(uint64_t id)
{
    const uint64_t bigx = id & 0x1FFFF, bigy = id >> 17;
    const uint64_t y = (bigy << 5) + (bigx & 0x1F), x = bigx >> 5;
    return x | y << 16;
}

/* The texel of an address, as a word index into a texture region. */
static uint64_t texel_word(uint64_t addr) { return ((addr >> 16) * TEX_WIDTH + (addr & 0xFFFF)) * 2; }

/* ---- the fill ------------------------------------------------------------------ */

gmmu_status mummer_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                        gmmu_error *err)
{
    (void)k;
    const uint64_t n = a[MUM_REF], reads = a[MUM_READS], len = a[MUM_READ_LEN];
    const uint32_t m = (uint32_t)(n + 2);
    uint8_t *t = malloc(m);
    if (!t)
        return gmmu_error_set(err, "kernel.inputs", "mummergpu: out of memory");
    /* The reference: uniform A/C/G/T between MUMmerGPU's 's' and '$'. */
    stream st = stream_of(seed, 0x6d756d6d6572ull);
    t[0] = CH_S;
    for (uint64_t i = 1; i <= n; i++)
        t[i] = (uint8_t)(CH_A + below(&st, 4));
    t[m - 1] = CH_DOLLAR;
    for (uint32_t i = 0; i < m; i++)
        w[2][i] = t[i];
    w[2][m] = CH_END;

    stree s;
    if (!stree_build(&s, t, m)) {
        free(t);
        return gmmu_error_set(err, "kernel.inputs", "mummergpu: out of memory");
    }
    const uint64_t ids = (uint64_t)s.ni + m + 1; /* with the NULL id 0 */
    if (ids > max_ids(n)) {
        stree_free(&s);
        free(t);
        return gmmu_error_set(err, "kernel.inputs", "mummergpu: the tree has %llu ids, more than the textures' %llu",
                              (unsigned long long)ids, (unsigned long long)max_ids(n));
    }
    numbering nb = {&s, malloc((size_t)s.ni * sizeof(uint32_t)), malloc((size_t)m * sizeof(uint32_t)),
                    malloc((size_t)(ids - 1) * sizeof(uint32_t)), malloc((size_t)(ids - 1) * sizeof(uint32_t)), 0,
                    0, 0};
    if (!nb.iid || !nb.lid || !nb.qnode || !nb.qdepth) {
        free(nb.iid);
        free(nb.lid);
        free(nb.qnode);
        free(nb.qdepth);
        stree_free(&s);
        free(t);
        return gmmu_error_set(err, "kernel.inputs", "mummergpu: out of memory");
    }
    number_tree(&nb, (uint32_t)a[MUM_WIDE_DEPTH]);
    free(nb.qnode);
    free(nb.qdepth);

    /* The texels. Leaves: their edge, no suffix link, no children. */
    uint64_t *node = w[0], *children = w[1];
    for (uint32_t j = 0; j < m; j++)
        node[texel_word(addr_of(nb.lid[j]))] = (uint64_t)s.lstart[j] | (uint64_t)(m - 1) << 32;
    for (uint32_t u = 0; u < s.ni; u++) {
        const uint64_t au = addr_of(nb.iid[u]), p = texel_word(au);
        const uint64_t end = u == 0 ? 0 : s.iend[u] - 1u;
        node[p] = (uint64_t)s.istart[u] | end << 32;
        node[p + 1] |= addr_of(nb.iid[s.ilink[u]]);
        for (uint32_t c = 0; c < NSLOT; c++) {
            const uint32_t v = s.child[(size_t)u * NSLOT + c];
            if (!v)
                continue;
            const uint64_t av = addr_of(*id_of(&nb, v));
            node[texel_word(av) + 1] |= au << 32; /* v's parent */
            if (c < 4)
                children[p + c / 2] |= av << (32 * (c & 1));
        }
    }
    free(nb.iid);
    free(nb.lid);
    stree_free(&s);

    /* The reads: a uniform start, each base replaced by one of the other
     * three with probability error_permille / 1000. */
    stream rs = stream_of(seed, 0x7265616473ull);
    const uint64_t rate = a[MUM_ERROR_PERMILLE];
    for (uint64_t r = 0; r < reads; r++) {
        uint64_t *q = &w[3][r * (len + 2)];
        const uint64_t pos = 1 + below(&rs, n - len + 1);
        q[0] = CH_Q;
        for (uint64_t i = 0; i < len; i++) {
            uint64_t b = t[pos + i];
            if (below(&rs, 1000) < rate)
                b = CH_A + (b - CH_A + 1 + below(&rs, 3)) % 4;
            q[1 + i] = b;
        }
        q[len + 1] = CH_END;
        w[4][r] = r * (len + 2);
        w[5][r] = len;
    }
    free(t);
    return GMMU_OK;
}
