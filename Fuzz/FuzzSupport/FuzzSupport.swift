#if canImport(Glibc)
import Glibc
#endif
import CLibFuzzer

/// The target of this program; set once by `fuzz` before libFuzzer starts, then only read, on
/// libFuzzer's one thread.
nonisolated(unsafe) private var testOneInput: ((UnsafeBufferPointer<UInt8>) -> Void)?

/// Hands the program to libFuzzer, which reads its flags and corpus folders from the command line
/// and calls `body` with every input it tries. A crash, a broken `invariant`, an AddressSanitizer
/// report, a leak or an input slower than `-timeout` ends the run, and the input is written under
/// `-artifact_prefix`.
public func fuzz(_ body: @escaping (UnsafeBufferPointer<UInt8>) -> Void) -> Never {
    testOneInput = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        testOneInput?(UnsafeBufferPointer(start: size > 0 ? data : nil, count: size))
        return 0
    })
}

/// A property every input must keep. When it does not hold, the program stops as a crash would,
/// so libFuzzer keeps the input that broke it.
public func invariant(_ holds: @autoclosure () -> Bool, _ what: @autoclosure () -> String,
                      file: StaticString = #fileID, line: UInt = #line) {
    if !holds() { fatalError("invariant broken: \(what())", file: file, line: line) }
}
