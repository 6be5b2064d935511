#if canImport(Glibc)
import Glibc
#endif

/// mallopt(M_MMAP_THRESHOLD, bytes); <malloc.h> is not in Swift's Glibc module, so it is
/// looked up at run time. Setting it also turns off glibc's dynamic threshold.
///
/// glibc raises its mmap threshold each time a large mmapped block is freed, up to 32 MiB; later
/// buffers of megabytes (request lines, photos, a relay's claimed batches) then come from the heap
/// arenas and stay in RSS for good after a burst. Pinned, large buffers are mmapped and go back
/// to the kernel when freed.
public func pinMallocMmapThreshold(bytes: Int32) {
    typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
    let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: MallOpt.self)(mmapThreshold, bytes)
}
