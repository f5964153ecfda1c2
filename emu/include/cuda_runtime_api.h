/* cuda_runtime_api.h for the CPU emulation: everything is in emu/cuda_emu.h */
#include "../cuda_emu.h"
