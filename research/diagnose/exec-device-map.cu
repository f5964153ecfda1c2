// research/diagnose/exec-device-map.cu: can a runner turn memory the GPU can
// write into code by mapping a GPU device file executable? (judge/README.md,
// "What is still possible": a device mapped executable.)
//
// It pins host memory the GPU writes (cudaHostAlloc), finds each mapping of a
// /dev/nvidia* file in /proc/self/maps, and maps the same file and offset
// again, privately and read+execute (the one kind of executable mapping the
// runner's system-call filter lets through), then says whether the new
// mapping exists and shows what the GPU wrote. Run it plainly and inside the
// wall:
//   nvcc -o build/exec-device-map research/diagnose/exec-device-map.cu
//   build/exec-device-map; build/confine/confine --read-list build/confine/driver-files -- build/exec-device-map
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static __global__ void mark(unsigned *p) { p[threadIdx.x] = 0xC3C3C3C3u; }

int main(void)
{
    unsigned *host = NULL;
    if (cudaHostAlloc((void **)&host, 1 << 20, cudaHostAllocMapped) != cudaSuccess) {
        printf("no pinned memory: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 2;
    }
    unsigned *dev = NULL;
    cudaHostGetDevicePointer((void **)&dev, host, 0);
    mark<<<1, 32>>>(dev);
    cudaDeviceSynchronize();
    printf("pinned at %p, GPU wrote %08x\n", (void *)host, host[0]);
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    int tried = 0, mapped = 0, same = 0;
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi, off;
        char perms[8], path[256] = "";
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &lo, &hi, perms, &off, path) < 4 ||
            strncmp(path, "/dev/nvidia", 11))
            continue;
        int fd = open(path, O_RDWR);
        if (fd < 0)
            continue;
        tried++;
        size_t len = hi - lo > 4096 ? 4096 : hi - lo;
        void *x = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, (off_t)off);
        if (x != MAP_FAILED) {
            mapped++;
            int covers = (unsigned long)host >= lo && (unsigned long)host < hi;
            if (covers && ((unsigned *)x)[((unsigned long)host - lo) / 4 % 1024] == host[0])
                same++;
            printf("  mapped %s at offset %lx read+exec privately (%s)\n", path, off,
                   covers ? "the pinned buffer's mapping" : "another mapping");
            munmap(x, len);
        } else {
            printf("  %s at offset %lx: refused (%s)\n", path, off, strerror(errno));
        }
        close(fd);
    }
    printf("device mappings tried %d, mapped read+exec %d, showing the GPU's bytes %d\n", tried, mapped, same);
    return 0;
}
