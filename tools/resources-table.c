/*
 * resources-table.c: grader/resources.tsv, what the compiler gave each
 * tier's reference kernel, for the sentence a correct stage that misses
 * the tier gets (grader/resources.c). make resources-expected builds the
 * references' objects and runs it:
 *
 *   build/tools/resources-table --objects STAGE...   the objects to build
 *   build/tools/resources-table STAGE...             the table, on stdout
 *
 * A row per tier's reference and architecture of its object: stage, tier,
 * arch, kernel, registers, local bytes, shared bytes, multiply-adds between
 * a global load and the shared store after it (grader/resources.h).
 * Run from the lab's root; needs cuobjdump (and nvdisasm) of the toolkit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resources.h"

static int wanted(const char *stage, int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], stage))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int objects = argc > 1 && !strcmp(argv[1], "--objects"), first = 1 + objects;
    static tier_reference refs[MAX_REFERENCES];
    char err[256], tool[4096];
    int n = grader_references_read(".", refs, MAX_REFERENCES, err, sizeof err);
    if (n < 0 || argc <= first) {
        fprintf(stderr, "resources-table: %s\n", n < 0 ? err : "say which stages: resources-table [--objects] STAGE...");
        return 2;
    }
    if (!objects && grader_resources_find_cuobjdump(tool, sizeof tool)) {
        fprintf(stderr, "resources-table: cuobjdump is not here (it comes with the CUDA Toolkit)\n");
        return 4;
    }
    if (!objects)
        printf("# made by make resources-expected (tools/resources-table.c): do not edit\n"
               "# stage\ttier\tarch\tkernel\tregisters\tlocal_bytes\tshared_bytes\tfmas_between_load_and_store\n");
    for (int i = 0; i < n; i++) {
        if (!wanted(refs[i].stage, argc, argv, first))
            continue;
        target t = {0};
        snprintf(t.stage, sizeof t.stage, "%s", refs[i].stage);
        grader_reference_target(&t, ".", &refs[i], 0);
        if (objects) {
            printf("%s\n", t.object + 2); /* without ./ */
            continue;
        }
        char *usage = grader_resources_dump(tool, "--dump-resource-usage", t.object);
        char *sass = grader_resources_dump(tool, "-sass", t.object);
        if (!usage || !sass) {
            fprintf(stderr, "resources-table: cuobjdump could not read %s\n", t.object);
            return 1;
        }
        /* every architecture of the object, once, in the order of its text */
        char done[256] = " ";
        for (const char *a = usage; (a = strstr(a, "arch = sm_")); a++) {
            char arch[16], word[20];
            resource_use u;
            snprintf(arch, sizeof arch, "%.*s", (int)strcspn(a + 7, "\n"), a + 7);
            snprintf(word, sizeof word, " %s ", arch);
            if (strstr(done, word))
                continue;
            snprintf(done + strlen(done), sizeof done - strlen(done), "%s ", arch);
            if (grader_resources_parse(usage, arch, &u) == 0)
                printf("%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n", refs[i].stage, refs[i].tier, arch, u.kernel,
                       u.registers, u.local_bytes, u.shared_bytes, grader_resources_overlap(sass, arch));
        }
        free(usage);
        free(sass);
    }
    return 0;
}
