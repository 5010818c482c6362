/* Kernel files: a small assembly text for gmmu_kernel (docs/simt.md). */
#include "gmmu/kernels.h"
#include "gmmu/kernel_inputs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_REGION_BASE 0x100000000000ull
#define TEXT_REGION_STRIDE 0x10000000ull /* 256 MiB: as the built-in kernels */
#define TEXT_REGION_MAX (16ull << 30)    /* 16 GiB per region */
#define MAX_LABELS 1024u
#define MAX_LINE 512u

typedef struct label_t {
    char name[32];
    uint32_t at;   /* instruction index */
    uint32_t line; /* where it was defined */
} label_t;

typedef struct fixup_t {
    char name[32];
    uint32_t insn, line;
} fixup_t;

typedef struct parser {
    gmmu_kernel *k;
    gmmu_error *err;
    uint32_t line;
    label_t labels[MAX_LABELS];
    uint32_t nlabels;
    fixup_t fix[GMMU_KERNEL_MAX_INSNS];
    uint32_t nfix;
    bool in_code;
    uint32_t seen[5]; /* line of the kernel, regs, warps_per_block, grid, shared line (0: none) */
    uint32_t *insn_line; /* optional: each instruction's line */
    bool section;        /* a program's named code section: its own header lines may open it */
    bool in_body;        /* the section's first instruction or label was seen */
    uint32_t own[4];     /* line of the section's own regs, warps_per_block, grid, shared (0: none) */
} parser;

static gmmu_status fail(parser *p, const char *fmt, const char *a)
{
    char what[160];
    snprintf(what, sizeof what, fmt, a ? a : "");
    return gmmu_error_set(p->err, "kernel.text", "line %u: %s", p->line, what);
}

static const struct {
    const char *name;
    gmmu_op op;
    const char *form; /* d = dst, a/b/c = sources, i = immediate, t = target */
} OPS[] = {
    {"movi", GMMU_OP_MOVI, "di"},   {"add", GMMU_OP_ADD, "dab"},    {"addi", GMMU_OP_ADDI, "dai"},
    {"mul", GMMU_OP_MUL, "dab"},    {"mad", GMMU_OP_MAD, "dabc"},   {"xor", GMMU_OP_XOR, "dab"},
    {"shli", GMMU_OP_SHLI, "dai"},  {"shri", GMMU_OP_SHRI, "dai"},  {"andi", GMMU_OP_ANDI, "dai"},
    {"sfu", GMMU_OP_SFU, "dai"},    {"ld", GMMU_OP_LD, "dai"},      {"st", GMMU_OP_ST, "abi"},
    {"red", GMMU_OP_RED, "abi"},    {"sltu", GMMU_OP_SLTU, "dab"},  {"brnz", GMMU_OP_BRNZ, "at"},
    {"jmp", GMMU_OP_JMP, "t"},      {"lds", GMMU_OP_LDS, "dai"},    {"sts", GMMU_OP_STS, "abi"},
    {"bar", GMMU_OP_BAR, ""},
};

const char *gmmu_kernel_op_name(gmmu_op op)
{
    for (unsigned i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (OPS[i].op == op)
            return OPS[i].name;
    return "?";
}

/* Split s (modified) into comma/space separated tokens. */
static unsigned tokens(char *s, char **tok, unsigned max)
{
    unsigned n = 0;
    for (char *q = s; *q;) {
        while (*q && (isspace((unsigned char)*q) || *q == ','))
            *q++ = '\0';
        if (!*q)
            break;
        if (n == max)
            return max + 1;
        tok[n++] = q;
        while (*q && !isspace((unsigned char)*q) && *q != ',')
            q++;
    }
    return n;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* `@R[+OFFSET]` into *r and *off: 0, or 1 for a bad offset, 2 for a bad
 * region number (not checked against the regions). */
static int region_ref(const char *s, uint64_t *r, uint64_t *off)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s + 1);
    char *plus = strchr(buf, '+');
    *off = 0;
    if (plus) {
        *plus = '\0';
        if (!parse_u64(plus + 1, off))
            return 1;
    }
    return parse_u64(buf, r) ? 0 : 2;
}

static gmmu_status parse_imm(parser *p, const char *s, int64_t *out)
{
    /* [-]NUMBER, or @R[+NUMBER] (region R's base) */
    if (s[0] == '@') {
        uint64_t off = 0, r = 0;
        const int bad = region_ref(s, &r, &off);
        if (bad == 1)
            return fail(p, "bad offset in '%s'", s);
        if (bad || r >= p->k->nregions)
            return fail(p, "'%s' names no declared region", s);
        *out = (int64_t)(p->k->region[r].base + off);
        return GMMU_OK;
    }
    bool neg = s[0] == '-';
    uint64_t v;
    if (!parse_u64(s + neg, &v) || (neg && v > (1ull << 63)))
        return fail(p, "bad number '%s'", s);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return GMMU_OK;
}

static gmmu_status parse_reg(parser *p, const char *s, uint8_t *out)
{
    uint64_t r;
    if ((s[0] != 'r' && s[0] != 'R') || !parse_u64(s + 1, &r) || !isdigit((unsigned char)s[1]))
        return fail(p, "expected a register (r0..r254), got '%s'", s);
    if (r >= GMMU_ISA_MAX_REGS)
        return fail(p, "register '%s' out of range r0..r254", s);
    *out = (uint8_t)r;
    return GMMU_OK;
}

static const char *const NUMERIC[] = {"regs", "warps_per_block", "grid", "shared"};

static int numeric_key(const char *t)
{
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(t, NUMERIC[i]) == 0)
            return (int)i;
    return -1;
}

/* regs, warps_per_block, grid or shared: one number. Leave the line out for
 * the default; 0 is no kernel (shared 0 is none). */
static gmmu_status set_numeric(parser *p, unsigned i, char **tok, unsigned n)
{
    uint64_t v = 0;
    if (n != 2 || !parse_u64(tok[1], &v) || v > (1u << 20) || (i < 3 && v == 0))
        return fail(p, i < 3 ? "'%s' needs one number 1..1048576 (leave the line out for the default)"
                             : "'%s' needs one number up to 1048576",
                    NUMERIC[i]);
    gmmu_kernel *k = p->k;
    uint32_t *dst[] = {&k->nregs, &k->warps_per_block, &k->grid_blocks, &k->shared_bytes};
    *dst[i] = (uint32_t)v;
    return GMMU_OK;
}

static gmmu_status header(parser *p, char **tok, unsigned n)
{
    gmmu_kernel *k = p->k;
    uint64_t v = 0;
    /* Each of these lines once: a second one would silently win. */
    static const char *const once[] = {"kernel", "regs", "warps_per_block", "grid", "shared"};
    for (unsigned i = 0; i < 5; i++)
        if (strcmp(tok[0], once[i]) == 0) {
            if (p->seen[i]) {
                char what[96];
                snprintf(what, sizeof what, "'%s' given twice (first on line %u)", once[i],
                         p->seen[i]);
                return fail(p, "%s", what);
            }
            p->seen[i] = p->line;
        }
    if (strcmp(tok[0], "kernel") == 0) {
        if (n != 2 || strlen(tok[1]) >= sizeof k->name)
            return fail(p, "'kernel NAME' (at most 31 characters)%s", NULL);
        memset(k->name, 0, sizeof k->name);
        memcpy(k->name, tok[1], strlen(tok[1]));
        return GMMU_OK;
    }
    if (strcmp(tok[0], "region") == 0) {
        if (n != 3 || (strcmp(tok[1], "input") && strcmp(tok[1], "output")) || !parse_u64(tok[2], &v) ||
            v == 0 || v > TEXT_REGION_MAX)
            return fail(p, "'region input|output BYTES' (1..17179869184 bytes: 16 GiB)%s", NULL);
        if (k->nregions >= GMMU_KERNEL_MAX_REGIONS)
            return fail(p, "more than 8 regions%s", NULL);
        gmmu_region *r = &k->region[k->nregions];
        /* Region i at BASE + i * 256 MiB, or, after a larger region, at the
         * next 256 MiB boundary past the previous one's end. */
        r->base = TEXT_REGION_BASE + (uint64_t)k->nregions * TEXT_REGION_STRIDE;
        if (k->nregions) {
            const gmmu_region *q = &k->region[k->nregions - 1];
            uint64_t after = (q->base + q->bytes + TEXT_REGION_STRIDE - 1) & ~(TEXT_REGION_STRIDE - 1);
            if (after > r->base)
                r->base = after;
        }
        r->bytes = (v + 0xFFFFull) & ~0xFFFFull;
        r->kind = strcmp(tok[1], "input") == 0 ? GMMU_REGION_INPUT : GMMU_REGION_OUTPUT;
        k->nregions++;
        return GMMU_OK;
    }
    if (strcmp(tok[0], "inputs") == 0) {
        if (k->inputs.line) {
            char what[64];
            snprintf(what, sizeof what, "'inputs' given twice (first on line %u)", k->inputs.line);
            return fail(p, "%s", what);
        }
        gmmu_error e = {{0}, {0}};
        if (gmmu_kernel_inputs_set(k, (const char *const *)tok + 1, n - 1, &e) != GMMU_OK)
            return fail(p, "%s", e.msg);
        k->inputs.line = p->line;
        return GMMU_OK;
    }
    const int i = numeric_key(tok[0]);
    if (i >= 0)
        return set_numeric(p, (unsigned)i, tok, n);
    return fail(p, "unknown header line '%s' (kernel, regs, warps_per_block, grid, shared, region, "
                   "inputs, code)", tok[0]);
}

static gmmu_status insn(parser *p, char **tok, unsigned n)
{
    gmmu_kernel *k = p->k;
    int which = -1;
    for (unsigned i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(tok[0], OPS[i].name) == 0)
            which = (int)i;
    if (which < 0)
        return fail(p, "unknown instruction '%s'", tok[0]);
    const char *form = OPS[which].form;
    if (n - 1 != strlen(form)) {
        char what[48];
        snprintf(what, sizeof what, "'%s' takes %u operand%s", tok[0], (unsigned)strlen(form),
                 strlen(form) == 1 ? "" : "s");
        return fail(p, "%s", what);
    }
    if (k->ninsns >= GMMU_KERNEL_MAX_INSNS)
        return fail(p, "more than 4096 instructions%s", NULL);
    if (p->insn_line)
        p->insn_line[k->ninsns] = p->line;
    gmmu_insn in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)OPS[which].op;
    unsigned s = 0;
    for (unsigned i = 0; form[i]; i++) {
        const char *t = tok[1 + i];
        gmmu_status st = GMMU_OK;
        switch (form[i]) {
        case 'd': st = parse_reg(p, t, &in.dst); break;
        case 'a':
        case 'b':
        case 'c': st = parse_reg(p, t, &in.src[s++]); break;
        case 'i': st = parse_imm(p, t, &in.imm); break;
        case 't': {
            uint64_t v;
            if (parse_u64(t, &v)) {
                in.imm = (int64_t)v; /* an instruction index; checked with the rest */
            } else {
                if (strlen(t) >= sizeof p->fix[0].name)
                    return fail(p, "label '%s' longer than 31 characters", t);
                fixup_t *f = &p->fix[p->nfix++];
                snprintf(f->name, sizeof f->name, "%s", t);
                f->insn = k->ninsns;
                f->line = p->line;
            }
            break;
        }
        }
        if (st != GMMU_OK)
            return st;
    }
    k->code[k->ninsns++] = in;
    return GMMU_OK;
}

gmmu_status gmmu_kernel_parse(gmmu_kernel *k, const char *text, size_t len, gmmu_error *err)
{
    return gmmu_kernel_parse_lines(k, text, len, NULL, err);
}

static gmmu_status parse_lines(gmmu_kernel *k, const char *text, size_t len, uint32_t *insn_line, bool section,
                               gmmu_error *err);

gmmu_status gmmu_kernel_parse_lines(gmmu_kernel *k, const char *text, size_t len, uint32_t *insn_line,
                                    gmmu_error *err)
{
    return parse_lines(k, text, len, insn_line, false, err);
}

static gmmu_status parse_lines(gmmu_kernel *k, const char *text, size_t len, uint32_t *insn_line, bool section,
                               gmmu_error *err)
{
    if (!k || (!text && len))
        return gmmu_error_set(err, "kernel.text", "kernel or text is NULL");
    parser *p = calloc(1, sizeof *p);
    if (!p)
        return gmmu_error_set(err, "kernel.text", "out of memory");
    memset(k, 0, sizeof *k);
    p->k = k;
    p->err = err;
    p->insn_line = insn_line;
    p->section = section;
    gmmu_status st = GMMU_OK;
    size_t pos = 0;
    char buf[MAX_LINE + 2];
    while (pos < len && st == GMMU_OK) {
        p->line++;
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        if (e - pos > MAX_LINE) {
            st = fail(p, "longer than 512 characters%s", NULL);
            break;
        }
        if (memchr(text + pos, '\0', e - pos)) {
            st = fail(p, "contains a NUL byte%s", NULL);
            break;
        }
        memcpy(buf, text + pos, e - pos);
        buf[e - pos] = '\0';
        pos = e + 1;
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *tok[8];
        unsigned n = tokens(buf, tok, 6);
        if (n == 0)
            continue;
        if (n > 6) {
            st = fail(p, "too many operands%s", NULL);
            break;
        }
        if (!p->in_code) {
            if (strcmp(tok[0], "code") == 0 && n == 1)
                p->in_code = true;
            else
                st = header(p, tok, n);
            continue;
        }
        /* A named section of a program may open with its own regs,
         * warps_per_block, grid and shared lines (docs/kernels.md): they
         * replace the shared header's for this section. */
        const int own = p->section && !p->in_body ? numeric_key(tok[0]) : -1;
        if (own >= 0) {
            if (p->own[own]) {
                char what[96];
                snprintf(what, sizeof what, "'%s' given twice in this section (first on line %u)", NUMERIC[own],
                         p->own[own]);
                st = fail(p, "%s", what);
                break;
            }
            p->own[own] = p->line;
            st = set_numeric(p, (unsigned)own, tok, n);
            continue;
        }
        p->in_body = true;
        size_t l0 = strlen(tok[0]);
        if (tok[0][l0 - 1] == ':') { /* label: [instruction] */
            tok[0][l0 - 1] = '\0';
            if (l0 < 2 || l0 - 1 >= sizeof p->labels[0].name || isdigit((unsigned char)tok[0][0])) {
                st = fail(p, "bad label '%s' (1..31 characters, not starting with a digit)", tok[0]);
                break;
            }
            for (uint32_t i = 0; i < p->nlabels; i++)
                if (strcmp(p->labels[i].name, tok[0]) == 0) {
                    st = fail(p, "label '%s' defined twice", tok[0]);
                    break;
                }
            if (st != GMMU_OK)
                break;
            if (p->nlabels >= MAX_LABELS) {
                st = fail(p, "more than 1024 labels%s", NULL);
                break;
            }
            label_t *lb = &p->labels[p->nlabels++];
            snprintf(lb->name, sizeof lb->name, "%s", tok[0]);
            lb->at = k->ninsns;
            lb->line = p->line;
            if (n > 1)
                st = insn(p, tok + 1, n - 1);
            continue;
        }
        st = insn(p, tok, n);
    }
    if (st == GMMU_OK && !p->in_code) {
        p->line++;
        st = fail(p, "no 'code' section%s", NULL);
    }
    if (st == GMMU_OK && !p->seen[0]) {
        p->line = 1;
        st = fail(p, "no 'kernel NAME' line%s", NULL);
    }
    for (uint32_t f = 0; f < p->nfix && st == GMMU_OK; f++) {
        uint32_t i = 0;
        while (i < p->nlabels && strcmp(p->labels[i].name, p->fix[f].name) != 0)
            i++;
        if (i == p->nlabels) {
            p->line = p->fix[f].line;
            st = fail(p, "branch to undefined label '%s'", p->fix[f].name);
            break;
        }
        k->code[p->fix[f].insn].imm = p->labels[i].at;
    }
    free(p);
    if (st != GMMU_OK)
        return st;
    /* Defaults a file may leave out. */
    if (k->warps_per_block == 0)
        k->warps_per_block = 1;
    if (k->grid_blocks == 0)
        k->grid_blocks = 1;
    if (k->nregs == 0)
        k->nregs = 16;
    gmmu_status st2 = gmmu_kernel_check(k, err);
    if (st2 != GMMU_OK || k->inputs.gen == 0)
        return st2;
    /* The regions against the generator's layout, named at the inputs line. */
    gmmu_error e = {{0}, {0}};
    if (gmmu_kernel_inputs_check(k, &e) != GMMU_OK)
        return gmmu_error_set(err, "kernel.text", "line %u: %s", k->inputs.line, e.msg);
    return GMMU_OK;
}

/* ---- programs: several code sections and the host loop ------------------ */

typedef struct pline {
    size_t at, len; /* the line's bytes in the text */
    char *tok[8];
    unsigned n;     /* tokens (0: blank or comment) */
    char buf[MAX_LINE + 2];
} pline;

static gmmu_status pfail(gmmu_error *err, uint32_t line, const char *fmt, const char *a)
{
    char what[160];
    snprintf(what, sizeof what, fmt, a ? a : "");
    return gmmu_error_set(err, "kernel.text", "line %u: %s", line, what);
}

void gmmu_program_free(gmmu_program *p)
{
    if (!p)
        return;
    free(p->kernel);
    free(p->insn_line);
    p->kernel = NULL;
    p->insn_line = NULL;
    p->nkernels = 0;
}

void gmmu_program_window(gmmu_program *p, uint32_t blocks)
{
    if (!p || !blocks)
        return;
    for (uint32_t i = 0; i < p->nkernels; i++)
        if (p->nkernels == 1 || blocks < p->kernel[i].grid_blocks)
            p->kernel[i].grid_blocks = blocks;
}

/* `@R[+OFF]` of kernel k: the VA, which must be an 8-aligned word inside
 * region R. */
static bool region_word(const gmmu_kernel *k, const char *s, uint64_t *va)
{
    uint64_t off = 0, r = 0;
    if (s[0] != '@' || region_ref(s, &r, &off) || r >= k->nregions || off >= k->region[r].bytes || (off & 7u))
        return false;
    *va = k->region[r].base + off;
    return true;
}

gmmu_status gmmu_program_parse(gmmu_program *prog, const char *text, size_t len, gmmu_error *err)
{
    if (!prog || (!text && len))
        return gmmu_error_set(err, "kernel.text", "program or text is NULL");
    memset(prog, 0, sizeof *prog);
    /* Lines: at most what fits the text; each tokenised once. */
    size_t nl = 1;
    for (size_t i = 0; i < len; i++)
        nl += text[i] == '\n';
    pline *L = calloc(nl, sizeof *L);
    char *ktext = malloc(len + nl + 8);
    prog->kernel = calloc(GMMU_PROGRAM_MAX_KERNELS, sizeof *prog->kernel);
    prog->insn_line = calloc((size_t)GMMU_PROGRAM_MAX_KERNELS * GMMU_KERNEL_MAX_INSNS, sizeof *prog->insn_line);
    if (!L || !ktext || !prog->kernel || !prog->insn_line) {
        free(L);
        free(ktext);
        gmmu_program_free(prog);
        return gmmu_error_set(err, "kernel.text", "out of memory");
    }
    gmmu_status st = GMMU_OK;
    uint32_t code_at[GMMU_PROGRAM_MAX_KERNELS]; /* each section's `code` line (index) */
    char names[GMMU_PROGRAM_MAX_KERNELS][32];
    uint32_t launch_at = 0, while_at = 0; /* 1-based line numbers, 0: none */
    uint32_t nsec = 0;
    size_t pos = 0;
    for (size_t i = 0; i < nl; i++) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        L[i].at = pos;
        L[i].len = e - pos;
        if (L[i].len <= MAX_LINE && !memchr(text + pos, '\0', L[i].len)) {
            memcpy(L[i].buf, text + pos, L[i].len);
            L[i].buf[L[i].len] = '\0';
            char *hash = strchr(L[i].buf, '#');
            if (hash)
                *hash = '\0';
            L[i].n = tokens(L[i].buf, L[i].tok, 6);
        }
        pos = e + 1;
        if (L[i].n == 0 || L[i].n > 6)
            continue;
        if (strcmp(L[i].tok[0], "code") == 0 && L[i].n <= 2) {
            if (nsec == GMMU_PROGRAM_MAX_KERNELS) {
                st = pfail(err, (uint32_t)i + 1, "more than 4 code sections%s", NULL);
                break;
            }
            if (L[i].n == 2 && strlen(L[i].tok[1]) >= 32) {
                st = pfail(err, (uint32_t)i + 1, "code section name '%s' longer than 31 characters", L[i].tok[1]);
                break;
            }
            snprintf(names[nsec], sizeof names[nsec], "%s", L[i].n == 2 ? L[i].tok[1] : "");
            for (uint32_t s = 0; s < nsec && L[i].n == 2; s++)
                if (strcmp(names[s], names[nsec]) == 0) {
                    st = pfail(err, (uint32_t)i + 1, "code section '%s' given twice", names[nsec]);
                    break;
                }
            if (st != GMMU_OK)
                break;
            if (nsec > 0 && (!names[0][0] || L[i].n == 1)) {
                st = pfail(err, (uint32_t)i + 1, "a program of several code sections names each one "
                                                 "('code NAME')%s", NULL);
                break;
            }
            code_at[nsec++] = (uint32_t)i;
        } else if (nsec == 0 && strcmp(L[i].tok[0], "launch") == 0) {
            if (launch_at) {
                st = pfail(err, (uint32_t)i + 1, "'launch' given twice%s", NULL);
                break;
            }
            launch_at = (uint32_t)i + 1;
        } else if (nsec == 0 && strcmp(L[i].tok[0], "repeat_while") == 0) {
            if (while_at) {
                st = pfail(err, (uint32_t)i + 1, "'repeat_while' given twice%s", NULL);
                break;
            }
            while_at = (uint32_t)i + 1;
        }
    }
    /* Each section: the header (without the program's own lines), its code
     * line as `code` and its instructions, every other line blank, so that
     * the kernel parser's line numbers are the file's. */
    for (uint32_t s = 0; s < (nsec ? nsec : 1) && st == GMMU_OK; s++) {
        size_t o = 0;
        const size_t first = nsec ? code_at[0] : nl;
        const size_t lo = nsec ? code_at[s] : nl, hi = nsec && s + 1 < nsec ? code_at[s + 1] : nl;
        for (size_t i = 0; i < nl; i++) {
            const bool header = i < first && i + 1 != launch_at && i + 1 != while_at;
            if (i == lo) {
                memcpy(ktext + o, "code", 4);
                o += 4;
            } else if (header || (i > lo && i < hi)) {
                memcpy(ktext + o, text + L[i].at, L[i].len);
                o += L[i].len;
            }
            if (i + 1 < nl)
                ktext[o++] = '\n';
        }
        gmmu_kernel *k = &prog->kernel[s];
        st = parse_lines(k, ktext, o, prog->insn_line + (size_t)s * GMMU_KERNEL_MAX_INSNS, nsec > 1, err);
        if (st == GMMU_OK && s == 0)
            memcpy(prog->name, k->name, sizeof prog->name);
        if (st == GMMU_OK && nsec && names[s][0]) {
            memset(k->name, 0, sizeof k->name);
            memcpy(k->name, names[s], strlen(names[s]));
        }
        prog->nkernels = s + 1;
    }
    /* The host loop. */
    if (st == GMMU_OK && launch_at) {
        pline *l = &L[launch_at - 1];
        if (l->n < 2)
            st = pfail(err, launch_at, "'launch NAME...' names the code sections of one iteration%s", NULL);
        for (unsigned t = 1; t < l->n && st == GMMU_OK; t++) {
            uint32_t s = 0;
            while (s < nsec && strcmp(names[s], l->tok[t]) != 0)
                s++;
            if (s == nsec)
                st = pfail(err, launch_at, "'launch': no code section '%s'", l->tok[t]);
            else
                prog->step[prog->nsteps++] = (uint8_t)s;
        }
        prog->launch_line = launch_at;
    } else if (st == GMMU_OK) {
        if (prog->nkernels > 1)
            st = pfail(err, (uint32_t)code_at[1] + 1, "several code sections need a 'launch' line%s", NULL);
        prog->step[0] = 0;
        prog->nsteps = 1;
    }
    prog->max_iters = 1;
    if (st == GMMU_OK && while_at) {
        pline *l = &L[while_at - 1];
        uint64_t v = 0;
        if (l->n != 3 || !region_word(&prog->kernel[0], l->tok[1], &prog->while_va) || !parse_u64(l->tok[2], &v) ||
            v == 0 || v > (1u << 20))
            st = pfail(err, while_at, "'repeat_while @R+OFFSET MAX': an 8-aligned word of a declared region, and "
                                      "at most 1..1048576 iterations%s", NULL);
        prog->max_iters = (uint32_t)v;
        prog->while_line = while_at;
    }
    free(L);
    free(ktext);
    if (st != GMMU_OK)
        gmmu_program_free(prog);
    return st;
}

void gmmu_program_start(const gmmu_program *p, gmmu_program_cursor *c, uint64_t *clear_va)
{
    c->iter = 0;
    c->step = 0;
    c->done = p->nsteps == 0;
    *clear_va = p->while_va;
}

gmmu_status gmmu_program_advance(const gmmu_program *p, gmmu_program_cursor *c, uint64_t word,
                                 uint64_t *clear_va, gmmu_error *err)
{
    *clear_va = 0;
    if (c->done)
        return gmmu_error_set(err, "program", "the program has ended");
    if (++c->step < p->nsteps)
        return GMMU_OK;
    /* The iteration's last launch is done. */
    c->step = 0;
    c->iter++;
    if (!p->while_va || word == 0) {
        c->done = true;
        return GMMU_OK;
    }
    if (c->iter >= p->max_iters) {
        c->done = true;
        return gmmu_error_set(err, "program", "the host loop ran %u iterations and its word is still set",
                              p->max_iters);
    }
    *clear_va = p->while_va;
    return GMMU_OK;
}
