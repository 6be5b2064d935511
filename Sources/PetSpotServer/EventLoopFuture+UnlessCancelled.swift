import NIOCore

extension EventLoopFuture where Value: Sendable {
    /// The future's result, or nil once the waiting task is cancelled: a wait that a stop can
    /// cut short. (`get()` waits for the future whatever happens to the task.)
    func resultUnlessCancelled() async -> Result<Value, any Error>? {
        let (results, continuation) = AsyncStream.makeStream(of: Result<Value, any Error>.self)
        whenComplete { result in
            continuation.yield(result)
            continuation.finish()
        }
        for await result in results { return result }
        return nil
    }
}
