/*
 * report.h: the class report and the similarity review, for instructors
 * (make report, make similarity; make class runs both at its end). Left out
 * of a student release with the rest of grader/class/.
 *
 *   text.c        files, HTML escaping (memory, JSON, errors: common/util.h,
 *                 the helper library; CSV fields and lines: grader/intake/)
 *   classdata.c   a class's OUT: gradebook.csv and each student's grade.json
 *                 (read with the grader's own JSON reader, common/jsonread.c)
 *   report.c      OUT/report.html: one self-contained page, inline SVG
 *   page.c        what both pages share: head, style, a stage's section
 *                 head, links, the totals table
 *   checkpage.c   the page of a check (make class CHECK=1): what compiled,
 *                 what was correct on the CPU emulator, each first message
 *   preprocess.c  a kernel.cu through the C preprocessor, reading no file
 *   tokens.c      a CUDA C source as a stream of normalised tokens
 *   similarity.c  fingerprints (k-grams, winnowing), the pairs, similarity.csv
 *   marks.c       each stage's review mark, measured (marks.tsv)
 *   simpage.c     similarity.html: the pairs side by side, matches marked
 *
 * Plain C and POSIX. Nothing here changes a grade: it reads what make class
 * wrote and writes pages for a person to read.
 */
#ifndef REPORT_H
#define REPORT_H

#include "util.h"

#include <stddef.h>
#include <stdio.h>

/* Exit statuses: 0 written, 1 a file could not be read or written, 2 usage,
 * 6 SUBMISSIONS has names to change (NAMES_REFUSED, grader/intake/names.h). */
enum { REPORT_OK = 0, REPORT_FAILED = 1, REPORT_USAGE = 2 };

/* ================================================================ text.c */
/* A regular file's bytes (NUL-terminated, length in *len), or NULL. A link
 * is not followed: NULL with *is_link set (is_link may be NULL). */
char *report_read_plain(const char *path, size_t *len, int *is_link);
/* Text into an HTML page: & < > " ' escaped, control bytes and invalid
 * UTF-8 shown as '?'. */
void report_html_put(FILE *f, const char *s);
void report_html_putn(FILE *f, const char *s, size_t n);

/* ========================================================== classdata.c */
typedef struct {
    char name[32], field[64], op[4];
    int points, max, graded, have_threshold, have_value;
    double threshold, value;
} tier_rec;

typedef struct {
    int present;               /* the stage is in the student's grade.json  */
    int points, max, correct, flagged, ran, bonus;
    char *reason;              /* the grader's reason ("" when none)        */
    tier_rec tiers[4];
    int ntiers;
} stage_rec;

typedef struct {
    char *name;                /* as in the gradebook                       */
    char *shown;               /* the name on the page (student-07 with anon) */
    char *status, *notes, *total, *max;
    char **points;             /* the gradebook's points per stage ("" none) */
    stage_rec *stages;         /* from grade.json, per stage                */
    char **messages;           /* a check's check.tsv: the first message a stage */
    int have_record;
    char *record_error;        /* why grade.json could not be read, or NULL */
} student_rec;

typedef struct {
    char **stages;
    int nstages;
    student_rec *students;
    int nstudents;
    char *gpu, *seed;
    int check;                 /* make class CHECK=1: no points, words      */
} class_rec;

/* Read OUT/gradebook.csv and OUT/students/NAME/grade.json; with anon, each
 * student is shown as student-NN (numbered in an order that is not the
 * names'). Exits with a one-line message when there is no gradebook. */
void class_read(const char *out, int anon, class_rec *c);
/* Text with every occurrence of the student's name replaced by the name
 * shown (new string): a compile error can carry a path with the name. */
char *report_anonymised(const student_rec *s, const char *text);

/* =============================================================== page.c */
/* A stage's family (stages.tsv: "matmul"), "" for a stage it does not know. */
const char *report_family_of(const char *stage);
/* A stage's section opened: its heading and its lesson (stages.tsv). */
void report_section_head(FILE *f, const char *stage);
/* The page's head: doctype, style, title, up to the end of its <h1>. */
void report_page_head(FILE *f, const char *title);
/* The rest of the page after its summary: links to each stage and to the
 * totals, each stage's section (section), the totals, the page's end. */
void report_page_body(FILE *f, const class_rec *c, void (*section)(FILE *, const class_rec *, int));

/* ========================================================== checkpage.c */
/* The page of a check: per stage, what compiled and what was correct on the
 * CPU emulator, each student's first message; then the totals. */
void report_check_page(FILE *f, const class_rec *c, int anon);

/* ============================================================= tokens.c */
/* One token: its class (a small number; identifiers all share one, each
 * keyword and operator its own, literals one per kind) and where it was. */
typedef struct {
    unsigned kind;
    unsigned start, end;       /* byte offsets in the source                */
    unsigned line;
} token;
/* The tokens of a CUDA C source; comments, layout, preprocessor lines and
 * empty statements dropped. Returns the count, the array in *out (free it). */
int report_tokenize(const char *src, size_t len, token **out);

/* ========================================================= preprocess.c */
/* src as the host compiler's C preprocessor gives it (macros expanded,
 * no #line markers), reading no file: the text (length in *out_len), or
 * NULL with why in *why (new strings). */
char *report_preprocess(const char *src, size_t len, size_t *out_len, char **why);

/* ======================================================== fingerprint.c */
/* A k-gram of tokens: its hash and the token it starts at. */
typedef struct {
    unsigned long long hash;
    unsigned pos;
} kgram;

/* One kernel.cu: a student's or one of the lab's own. */
typedef struct {
    char *who;              /* the student, or "lab:solutions/03_tiled/kernel.cu" */
    int lab;                /* one of the lab's kernels                   */
    int stage;              /* which of the stages compared               */
    char *src;
    size_t len;
    token *tok;
    int ntok;
    kgram *all;             /* every k-gram not in the base code, by hash */
    int nall;
    unsigned long long *prints; /* the winnowed fingerprints, distinct, sorted */
    int nprints;
} doc;

/* Token k-grams and the winnowing window (SIM_K tokens, SIM_W k-grams):
 * 12 is JPlag's least match for C; measured against other values with
 * tests/class/similarity/run.sh (build with -DSIM_K=16 to try one). */
#ifndef SIM_K
#define SIM_K 12
#endif
#ifndef SIM_W
#define SIM_W 6
#endif
/* The k-gram hashes of the base code (the skeleton), sorted; count in *n. */
unsigned long long *report_base_hashes(const char *src, size_t len, int *n);
/* Tokens, k-grams and fingerprints of d->src, those of the base left out. */
void report_fingerprint(doc *d, const unsigned long long *base, int nbase);
/* How alike a and b are, 0 to 100: the share of the smaller one's
 * fingerprints that the other has too. */
double report_similarity(const doc *a, const doc *b, int *shared);
/* Mark (1) each token of a that starts or is inside a k-gram b has too. */
void report_mark_shared(const doc *a, const doc *b, unsigned char *marks);

/* ============================================================== marks.c */
/* A stage's review mark and what it was measured from. */
typedef struct {
    char stage[64];
    int measured;           /* marks.tsv has a line for the stage          */
    int usable;             /* a score marks a pair for review             */
    int override;           /* the mark is --review's, not marks.tsv's     */
    double mark, honest_max, copy_min;
    int honest_pairs, copies;
    const char *record;     /* the measurements it came from ("# record:") */
} stage_mark;
/* The mark of each of the n stages from marks.tsv at path; review >= 0
 * (--review) is every stage's mark instead. Exits when path cannot be read
 * or a line is not of its form. */
stage_mark *report_marks_read(const char *path, char *const *stages, int n, double review);
/* What the page says of a stage's mark (new string). */
char *report_mark_said(const stage_mark *m);
/* 1 when a pair of this score is marked for review. */
int report_mark_reached(const stage_mark *m, double score);

/* ============================================================ simpage.c */
/* One compared pair of a stage. */
typedef struct {
    const char *stage;
    const stage_mark *mark; /* its stage's                                 */
    const doc *a, *b;       /* a is a student; b a student or the lab's   */
    double score;
    int shared;
} sim_pair;
/* similarity.html: per stage, its mark said, the ranking, then each pair
 * marked for review (and the top few in any case) side by side, the shared
 * runs marked. Pairs come sorted by stage, then score. */
void report_sim_page(FILE *f, const sim_pair *p, int n, const stage_mark *marks, int nstages, const char *how);

#endif /* REPORT_H */
