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

const char lab_stage[] = LAB_STAGE_NAME;
const char lab_variant[] = LAB_VARIANT_NAME;
const char lab_knob[] = LAB_KNOB_TEXT;
const char lab_stage_sizes[] = LAB_STAGE_SIZES;
const char lab_stage_timed[] = LAB_STAGE_TIMED;
