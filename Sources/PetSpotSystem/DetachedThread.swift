#if canImport(Glibc)
import Glibc
#endif

/// A named, detached POSIX thread for work that blocks (a gpsd watch, a signal pipe): what the
/// programs need of Foundation's Thread, which FoundationEssentials does not have.
public enum DetachedThread {
    /// Starts `body` on a new thread called `name` (the kernel keeps 15 bytes of it).
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            // What pthread_setname_np does, which Glibc's module does not export.
            try? FileDescriptorIO.writeFile("/proc/thread-self/comm", String(decoding: body.name.utf8.prefix(15), as: UTF8.self))
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            fatalError("cannot start the \(name) thread: \(SystemError(errno: result))")
        }
        pthread_detach(thread)
    }

    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void

        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}
