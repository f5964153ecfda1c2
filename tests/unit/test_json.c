/* test_json.c: the record writer's output, byte for byte. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "unit.h"

void test_json(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lab_json j;
    lab_json_start(&j, f);
    lab_json_string(&j, "stage", "03_tiled");
    lab_json_int(&j, "seed", 42);
    lab_json_object(&j, "gpu");
    lab_json_string(&j, "name", "say \"hi\"\n\\");
    lab_json_end(&j);
    lab_json_array(&j, "checks");
    lab_json_object(&j, NULL);
    lab_json_bool(&j, "ok", 1);
    lab_json_number(&j, "err", NAN);
    lab_json_end(&j);
    lab_json_number(&j, NULL, 0.5);
    lab_json_end(&j);
    lab_json_array(&j, "empty");
    lab_json_end(&j);
    lab_json_finish(&j);
    fclose(f);
    const char *want =
        "{\n"
        "  \"stage\": \"03_tiled\",\n"
        "  \"seed\": 42,\n"
        "  \"gpu\": {\n"
        "    \"name\": \"say \\\"hi\\\"\\n\\\\\"\n"
        "  },\n"
        "  \"checks\": [\n"
        "    {\n"
        "      \"ok\": true,\n"
        "      \"err\": null\n"
        "    },\n"
        "    0.5\n"
        "  ],\n"
        "  \"empty\": []\n"
        "}\n";
    CHECK(strcmp(text, want) == 0);
    if (strcmp(text, want))
        printf("got:\n%s", text);
    free(text);

    /* finish closes whatever is still open */
    text = NULL;
    f = open_memstream(&text, &len);
    lab_json_start(&j, f);
    lab_json_array(&j, "a");
    lab_json_object(&j, NULL);
    lab_json_int(&j, "x", -1);
    lab_json_finish(&j);
    fclose(f);
    CHECK(strcmp(text, "{\n  \"a\": [\n    {\n      \"x\": -1\n    }\n  ]\n}\n") == 0);
    free(text);
}
