import CDarkroomSystem
import Foundation

/// How the process's heap hands memory back to the kernel.
///
/// Each photograph makes libjpeg allocate a few large buffers (whole-image coefficient
/// arrays for progressive JPEGs: tens of MB) and free them at the end. By default glibc
/// serves blocks over 128 KB–32 MB with `mmap` and gives them back with `munmap`, so the
/// next photograph page-faults the same amount in again: ~15 % of the CPU time of
/// `darkroom filter` went to page faults. Keeping freed memory for reuse removes that;
/// the daemon gives it back explicitly when it goes idle (``releaseFreedMemory()``).
public enum Heap {
    /// Keeps freed memory in the process for reuse (no `mmap` for large blocks, no
    /// automatic trimming). Call once, early. `DARKROOM_HEAP=system` leaves glibc's
    /// defaults, for comparison in benchmarks.
    public static func keepFreedMemory() {
        guard ProcessInfo.processInfo.environment["DARKROOM_HEAP"] != "system" else { return }
        dr_keep_freed_memory()
    }

    /// Returns free heap pages to the kernel (`malloc_trim`). Costs a walk over the arenas.
    public static func releaseFreedMemory() {
        dr_release_free_memory()
    }
}
