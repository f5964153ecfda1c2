/*
 * unit.h: the smallest test framework that does the job. CHECK records a
 * pass or a failure (with file and line); main.c runs every test function and
 * ends with "unit: N passed, N failed".
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>

extern int unit_passed, unit_failed;

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (cond) {                                                             \
            unit_passed++;                                                      \
        } else {                                                                \
            unit_failed++;                                                      \
            printf("FAIL  %s:%d: %s\n", __FILE__, __LINE__, #cond);             \
        }                                                                       \
    } while (0)

/* The test groups, one per file. */
void test_args(void);
void test_stats(void);
void test_compare(void);
void test_json(void);
void test_rng(void);
void test_transpose(void);
void test_matmul(void);
void test_reduce(void);
void test_hints(void);
void test_measure(void);
void test_spawn(void);
void test_text(void);

#endif
