/*
 * jsonread.c: a strict JSON reader for the drivers' records.
 *
 * The harness writes records with common/json.c, but the grader treats them
 * as untrusted: the student's code runs in the same process as the harness.
 * So this reader follows RFC 8259 to the letter, refuses duplicate keys and
 * trailing text, and has limits on nesting and on the number of values, so
 * that no input can crash it or make it run for long. Recursion depth is
 * bounded by LAB_JSON_MAX_DEPTH.
 */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end, *start;
    int values;
    char *err;
    size_t errlen;
} reader;

/* Record the first error with its byte offset; returns NULL for chaining. */
static jvalue *fail(reader *r, const char *fmt, ...)
{
    if (r->err[0])
        return NULL;
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "%s at byte %ld", msg, (long)(r->p - r->start));
    return NULL;
}

static void skip_space(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static jvalue *new_value(reader *r, jtype type)
{
    if (++r->values > LAB_JSON_MAX_VALUES)
        return fail(r, "more than %d values", LAB_JSON_MAX_VALUES);
    jvalue *v = calloc(1, sizeof *v);
    if (!v)
        return fail(r, "out of memory");
    v->type = type;
    return v;
}

/* Append code point cp to buf as UTF-8. */
static size_t put_utf8(char *buf, unsigned cp)
{
    if (cp < 0x80) {
        buf[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        buf[0] = (char)(0xc0 | cp >> 6);
        buf[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        buf[0] = (char)(0xe0 | cp >> 12);
        buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        buf[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    buf[0] = (char)(0xf0 | cp >> 18);
    buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    buf[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static int hex4(reader *r, unsigned *out)
{
    if (r->end - r->p < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    r->p += 4;
    *out = v;
    return 0;
}

/* A \u escape, r->p past the "\u": its code point (a surrogate pair
 * joined) into *cp; 0, or -1 with the failure said. */
static int parse_unicode_escape(reader *r, unsigned *cp)
{
    unsigned lo;
    if (hex4(r, cp)) {
        fail(r, "bad \\u escape");
        return -1;
    }
    if (*cp >= 0xd800 && *cp < 0xdc00) {
        /* a high surrogate must be followed by a low one */
        if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u') {
            fail(r, "lone surrogate in \\u escape");
            return -1;
        }
        r->p += 2;
        if (hex4(r, &lo) || lo < 0xdc00 || lo >= 0xe000) {
            fail(r, "bad surrogate pair");
            return -1;
        }
        *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
    } else if (*cp >= 0xdc00 && *cp < 0xe000) {
        fail(r, "lone surrogate in \\u escape");
        return -1;
    }
    if (*cp == 0) {
        fail(r, "\\u0000 in a string");
        return -1;
    }
    return 0;
}

/* An escape, r->p past its backslash, decoded into out: the bytes
 * written, or -1 with the failure said. \uXXXX is 6 bytes of input and at
 * most 4 of output, a pair 12 and 4. */
static int parse_escape(reader *r, char *out)
{
    static const char plain[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
    char e = *r->p++;
    const char *at = e ? strchr(plain, e) : NULL;
    if (at) {
        *out = decoded[at - plain];
        return 1;
    }
    if (e == 'u') {
        unsigned cp;
        return parse_unicode_escape(r, &cp) ? -1 : (int)put_utf8(out, cp);
    }
    r->p--;
    fail(r, "bad escape");
    return -1;
}

/* A string literal, r->p at the opening quote. The decoded text is never
 * longer than the literal, so one allocation of the literal's size does. */
static char *parse_string(reader *r)
{
    r->p++; /* the opening quote */
    const char *q = r->p;
    while (q < r->end && *q != '"') {
        if (*q == '\\')
            q++;
        q++;
    }
    if (q >= r->end) {
        fail(r, "unterminated string");
        return NULL;
    }
    char *out = malloc((size_t)(q - r->p) + 1);
    if (!out) {
        fail(r, "out of memory");
        return NULL;
    }
    size_t n = 0;
    while (*r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        int wrote = 1;
        if (c < 0x20) {
            fail(r, "control character in a string");
            wrote = -1;
        } else if (c != '\\') {
            out[n] = (char)c;
            r->p++;
        } else {
            r->p++;
            wrote = parse_escape(r, out + n);
        }
        if (wrote < 0) {
            free(out);
            return NULL;
        }
        n += (size_t)wrote;
    }
    r->p++; /* the closing quote */
    out[n] = 0;
    return out;
}

/* A number, by the JSON grammar; strtod then reads the checked text. */
static jvalue *parse_number(reader *r)
{
    const char *s = r->p, *q = r->p;
    if (q < r->end && *q == '-')
        q++;
    if (q < r->end && *q == '0') {
        q++;
    } else if (q < r->end && *q >= '1' && *q <= '9') {
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    } else {
        return fail(r, "bad number");
    }
    if (q < r->end && *q == '.') {
        q++;
        if (q >= r->end || *q < '0' || *q > '9')
            return fail(r, "bad number");
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < r->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= r->end || *q < '0' || *q > '9')
            return fail(r, "bad number");
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    }
    char buf[64];
    if (q - s >= (long)sizeof buf)
        return fail(r, "number too long");
    memcpy(buf, s, (size_t)(q - s));
    buf[q - s] = 0;
    jvalue *v = new_value(r, J_NUMBER);
    if (!v)
        return NULL;
    v->number = strtod(buf, NULL); /* overflow gives +-HUGE_VAL: not finite */
    v->string = malloc((size_t)(q - s) + 1); /* as written, for tools/json.c */
    if (!v->string) {
        free(v);
        return fail(r, "out of memory");
    }
    memcpy(v->string, buf, (size_t)(q - s) + 1);
    r->p = q;
    return v;
}

static jvalue *parse_value(reader *r, int depth);

/* An array or an object, r->p at the bracket. */
static jvalue *parse_container(reader *r, int depth, int object)
{
    if (depth >= LAB_JSON_MAX_DEPTH)
        return fail(r, "nested deeper than %d levels", LAB_JSON_MAX_DEPTH);
    jvalue *v = new_value(r, object ? J_OBJECT : J_ARRAY);
    if (!v)
        return NULL;
    char close = object ? '}' : ']';
    int cap = 0;
    r->p++;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        skip_space(r);
        if (object) {
            if (r->p >= r->end || *r->p != '"') {
                fail(r, "expected a key");
                goto bad;
            }
            key = parse_string(r);
            if (!key)
                goto bad;
            for (int i = 0; i < v->count; i++)
                if (!strcmp(v->keys[i], key)) {
                    fail(r, "duplicate key \"%.40s\"", key);
                    free(key);
                    goto bad;
                }
            skip_space(r);
            if (r->p >= r->end || *r->p != ':') {
                free(key);
                fail(r, "expected ':'");
                goto bad;
            }
            r->p++;
        }
        jvalue *item = parse_value(r, depth + 1);
        if (!item) {
            free(key);
            goto bad;
        }
        if (v->count == cap) {
            cap = cap ? 2 * cap : 8;
            jvalue **items = realloc(v->items, (size_t)cap * sizeof *items);
            char **keys = object ? realloc(v->keys, (size_t)cap * sizeof *keys) : NULL;
            if (items)
                v->items = items;
            if (keys)
                v->keys = keys;
            if (!items || (object && !keys)) {
                free(key);
                lab_json_free(item);
                fail(r, "out of memory");
                goto bad;
            }
        }
        v->items[v->count] = item;
        if (object)
            v->keys[v->count] = key;
        v->count++;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return v;
        }
        fail(r, "expected ',' or '%c'", close);
        goto bad;
    }
bad:
    lab_json_free(v);
    return NULL;
}

static int literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
        return 0;
    r->p += n;
    return 1;
}

static jvalue *parse_value(reader *r, int depth)
{
    skip_space(r);
    if (r->p >= r->end)
        return fail(r, "unexpected end of input");
    char c = *r->p;
    if (c == '{' || c == '[')
        return parse_container(r, depth, c == '{');
    if (c == '"') {
        char *s = parse_string(r);
        if (!s)
            return NULL;
        jvalue *v = new_value(r, J_STRING);
        if (!v) {
            free(s);
            return NULL;
        }
        v->string = s;
        return v;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return parse_number(r);
    jvalue *v = NULL;
    if (literal(r, "true")) {
        v = new_value(r, J_BOOL);
        if (v)
            v->boolean = 1;
    } else if (literal(r, "false")) {
        v = new_value(r, J_BOOL);
    } else if (literal(r, "null")) {
        v = new_value(r, J_NULL);
    } else {
        return fail(r, "unexpected character '%c'", c >= 0x20 && c < 0x7f ? c : '?');
    }
    return v;
}

jvalue *lab_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    reader r = {text, text + len, text, 0, err, errlen};
    err[0] = 0;
    jvalue *v = parse_value(&r, 0);
    if (!v)
        return NULL;
    skip_space(&r);
    if (r.p != r.end) {
        fail(&r, "text after the end of the value");
        lab_json_free(v);
        return NULL;
    }
    return v;
}

void lab_json_free(jvalue *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->count; i++) {
        lab_json_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

const jvalue *lab_json_get(const jvalue *v, const char *key)
{
    if (!v || v->type != J_OBJECT)
        return NULL;
    for (int i = 0; i < v->count; i++)
        if (!strcmp(v->keys[i], key))
            return v->items[i];
    return NULL;
}

const jvalue *lab_json_path(const jvalue *v, const char *path)
{
    char part[128];
    while (v && *path) {
        size_t n = strcspn(path, ".");
        if (n == 0 || n >= sizeof part)
            return NULL;
        memcpy(part, path, n);
        part[n] = 0;
        path += n + (path[n] == '.');
        if (v->type == J_ARRAY) {
            char *end;
            errno = 0;
            long i = strtol(part, &end, 10);
            if (*end || errno || i < 0 || i >= v->count)
                return NULL;
            v = v->items[i];
        } else {
            v = lab_json_get(v, part);
        }
    }
    return v;
}

const char *lab_json_string_at(const jvalue *v, const char *path)
{
    const jvalue *s = lab_json_path(v, path);
    return s && s->type == J_STRING ? s->string : NULL;
}

int lab_json_number_at(const jvalue *v, const char *path, double *out)
{
    const jvalue *n = lab_json_path(v, path);
    if (!n || n->type != J_NUMBER || !isfinite(n->number))
        return -1;
    *out = n->number;
    return 0;
}

int lab_json_bool_at(const jvalue *v, const char *path)
{
    const jvalue *b = lab_json_path(v, path);
    return b && b->type == J_BOOL ? b->boolean : -1;
}

jvalue *lab_json_read(const char *path, size_t max, char *err, size_t errlen)
{
    char *text = lab_read_file(path, max);
    if (!text) {
        snprintf(err, errlen, "cannot read it");
        return NULL;
    }
    char why[200];
    jvalue *v = lab_json_parse(text, strlen(text), why, sizeof why);
    free(text);
    if (!v)
        snprintf(err, errlen, "not JSON: %s", why);
    return v;
}
