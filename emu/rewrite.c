/*
 * rewrite.c: the little of CUDA C that is not C++, made C++ for the CPU
 * emulation (emu/README.md). Lines stay where they were, and a #line names
 * the original file, so that the compiler's messages and the emulator's
 * name the student's lines.
 *
 *   build/emu/rewrite kernel.cu OUT.cc
 *
 *   k<<<grid, block[, shared[, stream]]>>>(args)
 *       -> lab_emu_launch(k, __FILE__, __LINE__, grid, block...)(lab_emu_params(k)(args))
 *   extern __shared__ T name[];
 *       -> T *const name = (T *)lab_emu_dynamic_shared;
 *   [static] __shared__ T a[..], b[..];
 *       -> __shared__ T a[..], b[..]; (named to the runtime: lab_emu_shared_name)
 *
 * A tokenizer that knows comments, strings, characters and preprocessor
 * lines; a kernel expression is an identifier with its :: qualifiers and
 * <template arguments>. Exit 0, or 2 with one line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t at, len; /* in the source */
    char kind;      /* 'i' identifier, 'p' punctuation, 'o' other (number, string, directive) */
} token;

static const char *src;
static size_t src_len;
static token *tok;
static size_t ntok;
static char *out;
static size_t out_len, out_cap;
static const char *path;

static void die(const char *fmt, const char *what, int line)
{
    fprintf(stderr, "%s:%d: ", path, line);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    exit(2);
}

static int line_of(size_t at)
{
    int line = 1;
    for (size_t i = 0; i < at && i < src_len; i++)
        line += src[i] == '\n';
    return line;
}

static void emit(const char *s, size_t n)
{
    if (out_len + n + 1 > out_cap) {
        out_cap = 2 * (out_len + n + 1);
        out = realloc(out, out_cap);
        if (!out)
            die("%s", "out of memory", 0);
    }
    memcpy(out + out_len, s, n);
    out_len += n;
}
static void emits(const char *s) { emit(s, strlen(s)); }

/* Split the source into tokens; whitespace and comments lie between them. */
static void tokenize(void)
{
    size_t cap = 1024, i = 0;
    tok = malloc(cap * sizeof *tok);
    int line_start = 1;
    while (i < src_len) {
        char c = src[i];
        if (c == '\n') { line_start = 1; i++; continue; }
        if (isspace((unsigned char)c)) { i++; continue; }
        if (c == '\\' && i + 1 < src_len && src[i + 1] == '\n') { i += 2; continue; }
        if (c == '/' && i + 1 < src_len && src[i + 1] == '/') {
            while (i < src_len && src[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < src_len && src[i + 1] == '*') {
            char *end = strstr(src + i + 2, "*/");
            i = end ? (size_t)(end - src) + 2 : src_len;
            continue;
        }
        if (ntok == cap) tok = realloc(tok, (cap *= 2) * sizeof *tok);
        token *t = &tok[ntok++];
        t->at = i;
        if (c == '#' && line_start) {
            /* a directive: #define bodies are tokens (a launch in a macro is
             * rewritten too); any other directive is kept whole */
            size_t j = i + 1;
            while (j < src_len && (src[j] == ' ' || src[j] == '\t')) j++;
            if (!strncmp(src + j, "define", 6)) {
                t->len = 1;
                t->kind = 'p';
                i++;
                line_start = 0;
                continue;
            }
            while (i < src_len && !(src[i] == '\n' && src[i - 1] != '\\')) i++;
            t->len = i - t->at;
            t->kind = 'o';
            continue;
        }
        line_start = 0;
        if (isalpha((unsigned char)c) || c == '_') {
            while (i < src_len && (isalnum((unsigned char)src[i]) || src[i] == '_')) i++;
            t->kind = 'i';
        } else if (isdigit((unsigned char)c) || (c == '.' && i + 1 < src_len && isdigit((unsigned char)src[i + 1]))) {
            while (i < src_len && (isalnum((unsigned char)src[i]) || src[i] == '.' || src[i] == '\'' ||
                                   ((src[i] == '+' || src[i] == '-') && strchr("eEpP", src[i - 1]))))
                i++;
            t->kind = 'o';
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < src_len && src[i] != c && src[i] != '\n') i += src[i] == '\\' ? 2 : 1;
            i++;
            t->kind = 'o';
        } else {
            static const char *ops[] = {"<<<", ">>>", "::", "->", NULL};
            t->kind = 'p';
            size_t n = 1;
            for (int k = 0; ops[k]; k++)
                if (!strncmp(src + i, ops[k], strlen(ops[k]))) { n = strlen(ops[k]); break; }
            i += n;
        }
        if (i > src_len) i = src_len;
        t->len = i - t->at;
    }
}

static int is(size_t k, const char *s)
{
    return k < ntok && tok[k].len == strlen(s) && !strncmp(src + tok[k].at, s, tok[k].len);
}

/* The first token of the kernel expression that ends just before k: an
 * identifier, with :: qualifiers and <template arguments>. */
static size_t kernel_start(size_t k)
{
    size_t j = k;
    for (;;) {
        if (j > 0 && is(j - 1, ">")) { /* template arguments, back to their "<" */
            int depth = 0;
            size_t m = j;
            while (m > 0) {
                m--;
                if (is(m, ">")) depth++;
                if (is(m, "<") && --depth == 0) break;
            }
            j = m;
        }
        if (j == 0 || tok[j - 1].kind != 'i')
            die("%s", "a launch <<<...>>> whose kernel is not a name: the emulator takes `kernel<<<...>>>(...)`",
                line_of(tok[k].at));
        j--;
        if (j > 0 && is(j - 1, "::")) { j--; if (j == 0 || tok[j - 1].kind != 'i') return j; continue; }
        return j;
    }
}

/* Copy the source from `from` up to token k's start. */
static size_t copy_to(size_t from, size_t k) { emit(src + from, tok[k].at - from); return tok[k].at; }

/* k<<<grid, block, shared>>>(args) at token k ("<<<"), its kernel's text
 * already out from launch[start]: lab_emu_launch(k, __FILE__, __LINE__,
 * grid, block, shared)(lab_emu_params(k)(args)). *from: the source
 * copied up to there. The token to go on after. */
static size_t rewrite_launch(size_t k, size_t *from, const size_t *launch)
{
    size_t start = kernel_start(k);
    /* the kernel's text is out already: put the call before it */
    size_t at = launch[start];
    char *kernel_text = strndup(out + at, out_len - at);
    out_len = at;
    emits("lab_emu_launch(");
    emits(kernel_text);
    emits(", __FILE__, __LINE__, ");
    int depth = 0;
    size_t j = k + 1;
    for (; j < ntok; j++) {
        if (is(j, "(") || is(j, "[") || is(j, "{")) depth++;
        if (is(j, ")") || is(j, "]") || is(j, "}")) depth--;
        if (depth == 0 && is(j, ">>>")) break;
    }
    if (j >= ntok || !is(j + 1, "("))
        die("%s", "a launch <<<...>>> without its >>>(arguments)", line_of(tok[k].at));
    *from = copy_to(tok[k].at + 3, j);
    emits(")(lab_emu_params(");
    emits(kernel_text);
    emits(")");
    free(kernel_text);
    /* the arguments, then one more ")" after theirs */
    int d = 0;
    size_t m = j + 1;
    for (; m < ntok; m++) {
        if (is(m, "(") || is(m, "[") || is(m, "{")) d++;
        if (is(m, ")") || is(m, "]") || is(m, "}")) d--;
        if (d == 0) break;
    }
    if (m >= ntok)
        die("%s", "a launch whose arguments never close", line_of(tok[k].at));
    *from = copy_to(tok[j].at + 3, m);
    emits(")");
    return m - 1;
}

/* extern __shared__ T name[]; at token k: the block's dynamic shared
 * memory, T *const name = (T *)lab_emu_dynamic_shared. */
static size_t rewrite_extern_shared(size_t k, size_t *from)
{
    size_t end = k + 2;
    while (end < ntok && !is(end, ";")) end++;
    if (end < 5 || !is(end - 1, "]") || !is(end - 2, "[") || tok[end - 3].kind != 'i')
        die("%s", "extern __shared__ must declare one array without a size: extern __shared__ float s[];",
            line_of(tok[k].at));
    size_t name = end - 3;
    emit(src + tok[k + 2].at, tok[name].at - tok[k + 2].at);
    emits("*const ");
    emit(src + tok[name].at, tok[name].len);
    emits(" = (");
    emit(src + tok[k + 2].at, tok[name].at - tok[k + 2].at);
    emits("*)lab_emu_dynamic_shared");
    *from = tok[end].at;
    return end - 1;
}

/* __shared__ declarations at token k: each declarator's name, after the
 * declaration's ";", for the messages (lab_emu_shared_name). */
static size_t rewrite_shared(size_t k, size_t *from, int *named)
{
    size_t end = k + 1;
    int depth = 0;
    char names[2048] = "";
    for (; end < ntok && !(depth == 0 && is(end, ";")); end++) {
        if (is(end, "(") || is(end, "[") || is(end, "{")) depth++;
        if (is(end, ")") || is(end, "]") || is(end, "}")) depth--;
        int last = depth == 0 && (is(end + 1, ",") || is(end + 1, ";") || is(end + 1, "[") || is(end + 1, "="));
        if (tok[end].kind == 'i' && last && !is(end, "__shared__")) {
            char one[512];
            snprintf(one, sizeof one, " static lab_emu_shared_name lab_emu_name_%d(&%.*s, \"%.*s\");",
                     (*named)++, (int)tok[end].len, src + tok[end].at, (int)tok[end].len, src + tok[end].at);
            if (strlen(names) + strlen(one) < sizeof names)
                strcat(names, one);
        }
    }
    if (end >= ntok)
        die("%s", "a __shared__ declaration without its ;", line_of(tok[k].at));
    copy_to(*from, end);
    emits(";");
    emits(names);
    *from = tok[end].at + 1;
    return end;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: rewrite FILE.cu OUT.cc\n");
        return 2;
    }
    path = argv[1];
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "rewrite: cannot read %s\n", path); return 2; }
    static char buf[1 << 22];
    src_len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    src = buf;
    tokenize();

    char head[4200];
    snprintf(head, sizeof head, "#line 1 \"%s\"\n", path);
    emits(head);
    size_t from = 0;     /* source copied up to here */
    size_t *launch = calloc(ntok + 1, sizeof *launch); /* output offset of each token */
    int named = 0;
    for (size_t k = 0; k < ntok; k++) {
        from = copy_to(from, k);
        launch[k] = out_len;
        if (is(k, "<<<"))
            k = rewrite_launch(k, &from, launch);
        else if (is(k, "extern") && is(k + 1, "__shared__"))
            k = rewrite_extern_shared(k, &from);
        else if (is(k, "static") && (is(k + 1, "__shared__") || (k + 2 < ntok && is(k + 2, "__shared__"))))
            from = tok[k].at + tok[k].len; /* __shared__ says static itself */
        else if (is(k, "__shared__"))
            k = rewrite_shared(k, &from, &named);
    }
    emit(src + from, src_len - from);
    FILE *o = fopen(argv[2], "wb");
    if (!o || fwrite(out, 1, out_len, o) != out_len || fclose(o)) {
        fprintf(stderr, "rewrite: cannot write %s\n", argv[2]);
        return 2;
    }
    return 0;
}
