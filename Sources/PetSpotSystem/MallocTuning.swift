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

/// malloc_trim(0): hands the kernel back the free pages inside every malloc arena, not only at
/// the top of each heap as free() does. After clients let go of many small blocks (waiting
/// notifications, answers of a few KiB), one block still in use above them keeps all of them in
/// RSS until this runs. It walks every arena under that arena's lock: never on an event loop.
/// Answers whether any memory went back.
@discardableResult
public func trimMallocFreeMemory() -> Bool {
    typealias MallocTrim = @convention(c) (UInt) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return false }
    return unsafeBitCast(symbol, to: MallocTrim.self)(0) == 1
}

/// The process's resident set now (/proc/self/statm), in bytes; nil where it cannot be read.
public func residentBytes() -> Int? {
    guard let statm = try? FileDescriptorIO.readFile("/proc/self/statm"),
          let pages = String(decoding: statm, as: UTF8.self).split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
