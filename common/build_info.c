/*
 * build_info.c: who this binary is. Compiled once per binary by the Makefile
 * with -DLAB_STAGE_NAME, -DLAB_VARIANT_NAME and -DLAB_KNOB_TEXT, so a record
 * always says which stage, which kernel.cu and which knob value produced it;
 * and with -DLAB_STAGE_SIZES and -DLAB_STAGE_TIMED, the stage's own sizes
 * from stages.tsv ("" where it has none: the family's).
 */
#include "lab.h"

#ifndef LAB_STAGE_NAME
#define LAB_STAGE_NAME "unknown"
#endif
#ifndef LAB_VARIANT_NAME
#define LAB_VARIANT_NAME "unknown"
#endif
#ifndef LAB_KNOB_TEXT
#define LAB_KNOB_TEXT ""
#endif
#ifndef LAB_STAGE_SIZES
#define LAB_STAGE_SIZES ""
#endif
#ifndef LAB_STAGE_TIMED
#define LAB_STAGE_TIMED ""
#endif

/* the family's definition: lab_family_this, or in a judge, which links
 * every family, lab_family_<family> (Makefile, "judge") */
#ifndef LAB_FAMILY_SYMBOL
#define LAB_FAMILY_SYMBOL lab_family_this
#endif
extern const struct lab_family_s LAB_FAMILY_SYMBOL;

const char *lab_stage = LAB_STAGE_NAME;
const char *lab_variant = LAB_VARIANT_NAME;
const char *lab_knob = LAB_KNOB_TEXT;
const char *lab_stage_sizes = LAB_STAGE_SIZES;
const char *lab_stage_timed = LAB_STAGE_TIMED;
const struct lab_family_s *lab_family_run = &LAB_FAMILY_SYMBOL;
