// glibc's allocator tuning (mallopt, malloc.h): the executable sets its mmap and trim thresholds.
#include <malloc.h>
