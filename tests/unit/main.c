/* main.c: runs every group of host unit tests. */
#include "unit.h"

int unit_passed, unit_failed;

int main(void)
{
    struct { const char *name; void (*fn)(void); } groups[] = {
        {"args", test_args}, {"stats", test_stats}, {"compare", test_compare},
        {"json", test_json}, {"rng", test_rng},
        {"transpose", test_transpose},
        {"matmul", test_matmul},
        {"reduce", test_reduce},
        {"hints", test_hints},
        {"measure", test_measure},
        {"spawn", test_spawn},
        {"text", test_text},
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        int before = unit_failed, checks = unit_passed + unit_failed;
        groups[i].fn();
        printf("%s  %-8s %d checks\n", unit_failed == before ? "ok  " : "FAIL", groups[i].name,
               unit_passed + unit_failed - checks);
    }
    printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
    return unit_failed != 0;
}
