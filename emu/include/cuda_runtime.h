/* cuda_runtime.h for the CPU emulation: everything is in emu/cuda_emu.h */
#include "../cuda_emu.h"
