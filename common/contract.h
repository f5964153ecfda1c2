/*
 * contract.h: a family's contract function as the lab passes it on, made
 * from the one line its header writes (common/<family>.h):
 *
 *   #define LAB_CONTRACT_NAME matmul
 *   #define LAB_CONTRACT(ARRAY, VALUE, COMMA) ARRAY(const float *, A, (size_t)n * n) COMMA() ...
 *
 * each argument in order: ARRAY(type, name, floats) a device array (floats:
 * how many the call may touch, 0 for all the harness allocated) or
 * VALUE(type, name) an integer. From it, with no line per family:
 *
 *   judge/calls.cu   the judge's stand-in for the function, which queues the
 *                    call, and the runner's end, which makes it again
 *   emu/main.cc      the CPU emulation's wrapper, which names the arrays and
 *                    the call's size ("n=256", "256x256") for the messages
 *   emu/emu.mk       the function's C++ symbol, read from a compiled object
 *                    (build/emu/contract-<family>.sym), main.cc's --wrap name
 */
#ifndef LAB_CONTRACT_H
#define LAB_CONTRACT_H

#ifndef LAB_CONTRACT
#error "the family's header (common/<family>.h) defines no LAB_CONTRACT: see common/contract.h"
#endif

#define LAB_COMMA() ,
#define LAB_NONE()
#define LAB_ARRAY_PARAM(type, name, floats) type name
#define LAB_VALUE_PARAM(type, name) type name
#define LAB_ARRAY_ARG(type, name, floats) name
#define LAB_VALUE_ARG(type, name) name
#define LAB_ARRAY_SKIP(type, name, floats)
#define LAB_VALUE_SKIP(type, name)

/* the parameter list, and the arguments of a call with the same names */
#define LAB_CONTRACT_PARAMS LAB_CONTRACT(LAB_ARRAY_PARAM, LAB_VALUE_PARAM, LAB_COMMA)
#define LAB_CONTRACT_ARGS LAB_CONTRACT(LAB_ARRAY_ARG, LAB_VALUE_ARG, LAB_COMMA)

/* "x" spelled as a string */
#define LAB_STRING(x) LAB_STRING_(x)
#define LAB_STRING_(x) #x

#endif /* LAB_CONTRACT_H */
