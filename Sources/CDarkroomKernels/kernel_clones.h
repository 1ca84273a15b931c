#ifndef DARKROOM_KERNEL_CLONES_H
#define DARKROOM_KERNEL_CLONES_H

/* DR_CLONES: compile a kernel twice (AVX2 and baseline) and pick one at load time. */

#ifndef __has_feature
#define __has_feature(x) 0
#endif

/* The clones' ifunc resolver runs during dynamic relocation, before a sanitizer's runtime
 * is initialised; instrumented, it crashes at load. Sanitized builds use the default clone. */
#if defined(__x86_64__) && defined(__linux__) && !__has_feature(thread_sanitizer) && !__has_feature(address_sanitizer)
#define DR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DR_CLONES
#endif

#endif
