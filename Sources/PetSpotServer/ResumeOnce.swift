import Synchronization

/// A continuation that whichever of several events comes first resumes; the others find it
/// already resumed and do nothing.
final class ResumeOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume() {
        continuation.withLock { stored in
            stored?.resume()
            stored = nil
        }
    }
}
