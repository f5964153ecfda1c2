/*
 * tokens.c: a CUDA C source as the token stream that similarity compares.
 * What a copier changes for free is dropped or made one: comments, blanks
 * and line breaks are dropped, preprocessor lines too (#include, #define
 * TILE 16: the knobs differ between honest kernels; similarity hands over
 * the text with macros expanded, preprocess.c) and empty statements (;;);
 * every identifier of the student's own becomes one token ID, every number
 * NUM, every string STR.
 * What a copier cannot rename stays itself: C's keywords and types, CUDA's
 * (__global__, __shared__, threadIdx, __syncthreads, __shfl_down_sync ...)
 * and each operator. As MOSS and JPlag do, this keeps the structure and
 * forgets the names.
 */
#include "report.h"

#include <ctype.h>
#include <string.h>

enum { TOK_ID = 1, TOK_NUM, TOK_STR, TOK_CHR, TOK_WORDS = 16, TOK_OPS = 512 };

/* Words kept as themselves: their index + TOK_WORDS is their kind. */
static const char *const kept[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
    "true", "false", "size_t", "template", "typename", "constexpr", "static_assert", "nullptr", "__restrict__",
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "__forceinline__", "__launch_bounds__",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "x", "y", "z", "w", "dim3", "float2", "float4",
    "int2", "int4", "__syncthreads", "__syncwarp", "__shfl_down_sync", "__shfl_xor_sync", "__shfl_sync",
    "__shfl_up_sync", "atomicAdd", "__ldg", "fmaf", "min", "max", "fminf", "fmaxf", "fabsf", "reinterpret_cast",
    "static_cast", "cudaGetLastError", "cudaDeviceSynchronize", "cudaMemsetAsync", "cudaMemset",
};

/* Operators, longest first so that ">>=" is not read as ">>" then "=". */
static const char *const ops[] = {
    "<<<", ">>>", "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::",
};

static unsigned word_kind(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        if (strlen(kept[i]) == n && !memcmp(kept[i], s, n))
            return TOK_WORDS + (unsigned)i;
    return TOK_ID;
}

/* The length of the operator at s and its kind. */
static size_t op_at(const char *s, unsigned *kind)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        size_t n = strlen(ops[i]);
        if (!strncmp(s, ops[i], n)) {
            *kind = TOK_OPS + 256 + (unsigned)i;
            return n;
        }
    }
    *kind = TOK_OPS + (unsigned char)*s;
    return 1;
}

int report_tokenize(const char *src, size_t len, token **out)
{
    size_t cap = 256, n = 0, i = 0;
    unsigned line = 1;
    int line_start = 1;
    token *t = lab_alloc(cap * sizeof *t);
    while (i < len) {
        char c = src[i];
        if (c == '\n') {
            line++;
            line_start = 1;
            i++;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < len && src[i + 1] == '/') {
            while (i < len && src[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < len && src[i + 1] == '*') {
            for (i += 2; i < len && !(src[i] == '*' && i + 1 < len && src[i + 1] == '/'); i++)
                line += src[i] == '\n';
            i += 2;
            continue;
        }
        if (c == '#' && line_start) {
            /* a preprocessor line, with its continuations */
            while (i < len && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n') {
                    line++;
                    i++;
                }
                i++;
            }
            continue;
        }
        line_start = 0;
        token k = {0, (unsigned)i, 0, line};
        if (isalpha((unsigned char)c) || c == '_') {
            size_t j = i;
            while (j < len && (isalnum((unsigned char)src[j]) || src[j] == '_'))
                j++;
            k.kind = word_kind(src + i, j - i);
            /* x, y, z, w are kept only as members (threadIdx.x, v.w) */
            if (j - i == 1 && strchr("xyzw", c) && (n == 0 || t[n - 1].kind != TOK_OPS + '.'))
                k.kind = TOK_ID;
            i = j;
        } else if (isdigit((unsigned char)c) || (c == '.' && i + 1 < len && isdigit((unsigned char)src[i + 1]))) {
            /* 16, 0.0f, 1e-3, 0x1F, 1024u: all one NUM */
            size_t j = i;
            while (j < len && (isalnum((unsigned char)src[j]) || src[j] == '.' ||
                               ((src[j] == '-' || src[j] == '+') && (src[j - 1] == 'e' || src[j - 1] == 'E'))))
                j++;
            k.kind = TOK_NUM;
            i = j;
        } else if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < len && src[j] != c && src[j] != '\n')
                j += src[j] == '\\' ? 2 : 1;
            k.kind = c == '"' ? TOK_STR : TOK_CHR;
            i = j < len ? j + 1 : len;
        } else {
            i += op_at(src + i, &k.kind);
        }
        k.end = (unsigned)(i > len ? len : i);
        /* an empty statement (;; or { ; }) is no structure of its own */
        if (k.kind == TOK_OPS + ';' && n &&
            (t[n - 1].kind == TOK_OPS + ';' || t[n - 1].kind == TOK_OPS + '{' || t[n - 1].kind == TOK_OPS + '}'))
            continue;
        if (n == cap)
            t = lab_grow(t, (cap *= 2) * sizeof *t);
        t[n++] = k;
    }
    *out = t;
    return (int)n;
}
