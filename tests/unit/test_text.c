/* test_text.c: the helper library's text: lines, words, CSV fields, the
 * first and last line, a growing string (common/text.c). */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "util.h"

/* 1 when list holds exactly the n strings of want, NULL after them. */
static int list_is(char **list, int count, int n, const char *const *want)
{
    int ok = list && count == n && list[n] == NULL;
    for (int i = 0; ok && i < n; i++)
        ok = !strcmp(list[i], want[i]);
    lab_list_free(list);
    return ok;
}

static int string_is(char *s, const char *want)
{
    int ok = s && !strcmp(s, want);
    free(s);
    return ok;
}

void test_text(void)
{
    int n = -1;
    char **l = lab_lines("a\n\nb\n", &n);
    CHECK(list_is(l, n, 3, (const char *[]){"a", "", "b"}));  /* the last newline ends b */
    l = lab_lines("a\r\nb", &n);
    CHECK(list_is(l, n, 2, (const char *[]){"a\r", "b"}));
    l = lab_lines(NULL, &n);
    CHECK(list_is(l, n, 0, NULL));
    l = lab_lines("", &n);
    CHECK(list_is(l, n, 0, NULL));

    l = lab_words("  one\ttwo \n three  ", &n);
    CHECK(list_is(l, n, 3, (const char *[]){"one", "two", "three"}));
    l = lab_words(" \t\n", &n);
    CHECK(list_is(l, n, 0, NULL));

    l = lab_csv_fields("a,\"b,\"\"c\"\"\",,d\r\n", &n);
    CHECK(list_is(l, n, 4, (const char *[]){"a", "b,\"c\"", "", "d"}));
    CHECK(lab_csv_fields("a,\"open", &n) == NULL);  /* a quote left open */

    CHECK(string_is(lab_first_line("one\ntwo"), "one") && string_is(lab_first_line(NULL), ""));
    CHECK(string_is(lab_last_line("one\n# note\ntwo\n\n# end\n", "#"), "two"));
    CHECK(string_is(lab_last_line("", NULL), ""));

    char *s = NULL;
    lab_join(&s, ", ", "a");
    lab_join(&s, ", ", "b");
    lab_appendf(&s, " (%d)", 2);
    CHECK(string_is(s, "a, b (2)"));

    CHECK(lab_file_lines("/nonexistent/lab-unit", &n) == NULL && n == 0);
}
