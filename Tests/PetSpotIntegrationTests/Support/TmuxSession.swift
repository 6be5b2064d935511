import Foundation
import PetSpotTestSupport

/// A program on a real terminal, driven as a person would: tmux runs it in a pane of a fixed
/// size, `type` sends keys, `screen` reads what the pane shows. Each session has a tmux server
/// of its own, so tests never see each other's panes or a person's tmux.
final class TmuxSession {
    private let server = "petspot-test-\(UUID().uuidString.prefix(8))"
    private let configPath: String
    private let target = "report"

    /// Starts `command` in a `width`×`height` pane.
    init(_ command: [String], environment: [String: String] = [:], directory: URL, width: Int = 120, height: Int = 50) throws {
        configPath = directory.appendingPathComponent("\(server).conf").path
        // The pane stays after the program exits, so its last words can be read.
        try "set -g remain-on-exit on\n".write(toFile: configPath, atomically: true, encoding: .utf8)
        var arguments = ["new-session", "-d", "-x", String(width), "-y", String(height), "-s", target, "-c", directory.path]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        // tmux now and then misses its child's SIGCHLD and never learns the exit status, so a
        // shell waits for the program and prints it. The shell ignores Ctrl-C, which the
        // program (the foreground process group's other member) handles itself.
        let wrapper = ["/bin/sh", "-c", "trap '' INT; \"$@\"; echo \"\(Self.exitMarker)$?\"", "sh"]
        try detached(arguments + ["--"] + wrapper + command)
    }

    private static let exitMarker = "[tmux-test] exit status "

    deinit {
        try? detached(["kill-server"])
        try? FileManager.default.removeItem(atPath: configPath)
    }

    /// Types `text` literally, then Enter.
    func type(_ text: String) throws {
        if !text.isEmpty { try tmux(["send-keys", "-t", target, "-l", text]) }
        try tmux(["send-keys", "-t", target, "Enter"])
    }

    /// A key by tmux's name for it, e.g. "C-c".
    func press(_ key: String) throws {
        try tmux(["send-keys", "-t", target, key])
    }

    /// What the pane shows now; with `escapes`, with its colour and style codes.
    func screen(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p", "-t", target] + (escapes ? ["-e"] : []))
    }

    /// Waits until the last line with text is the prompt starting with `prompt`, waiting for
    /// input (nothing typed after its colon yet); returns the screen.
    @discardableResult
    func waitForPrompt(_ prompt: String, seconds: Double = 15) throws -> String {
        var last = ""
        do {
            try waitUntil("the prompt \"\(prompt)\"", seconds: seconds) {
                last = try screen()
                guard let line = last.split(separator: "\n").last(where: { !$0.allSatisfy(\.isWhitespace) }) else { return false }
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return trimmed.hasPrefix("› " + prompt) && trimmed.hasSuffix(":")
            }
        } catch {
            throw TimedOut(description: "\(error)\n--- screen ---\n\(last)")
        }
        return last
    }

    /// Waits until the screen shows `text`; returns the screen.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 15) throws -> String {
        var last = ""
        do {
            try waitUntil("\"\(text)\" on the screen", seconds: seconds) {
                last = try screen()
                return last.contains(text)
            }
        } catch {
            throw TimedOut(description: "\(error)\n--- screen ---\n\(last)")
        }
        return last
    }

    /// Waits for the program to end; returns its exit status.
    func waitForExit(seconds: Double = 15) throws -> Int32 {
        let screen = try waitFor(Self.exitMarker, seconds: seconds)
        guard let marker = screen.range(of: Self.exitMarker),
            let status = Int32(screen[marker.upperBound...].prefix { $0.isNumber })
        else { throw TimedOut(description: "no exit status on the screen:\n\(screen)") }
        return status
    }

    /// A tmux command that may start the server. The server outlives the command and keeps
    /// every descriptor it inherited, so it must inherit none: Foundation's `Process` would wait
    /// for ever for the end of its own monitoring socket, and a pipe would never reach EOF.
    private func detached(_ arguments: [String]) throws {
        let argv = ["/usr/bin/tmux", "-L", server, "-f", configPath] + arguments
        // The pane inherits the server's environment: the test runner's NO_COLOR must not leak in.
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "NO_COLOR" }.map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        // The test runs on a thread that blocks every signal; tmux must not inherit that, or it
        // never hears SIGCHLD and never learns how its program ended.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned = withCStrings(argv) { cArgv in
            withCStrings(environment) { cEnv in posix_spawn(&pid, argv[0], &actions, &attributes, cArgv, cEnv) }
        }
        guard spawned == 0 else { throw TimedOut(description: "cannot run tmux: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw TimedOut(description: "tmux \(arguments.joined(separator: " ")) failed with wait status \(status)")
        }
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let result = try runProgram("/usr/bin/tmux", ["-L", server, "-f", configPath] + arguments)
        guard result.status == 0 else {
            throw TimedOut(description: "tmux \(arguments.joined(separator: " ")) failed with \(result.status): \(result.stderr)")
        }
        return result.stdout
    }
}

/// A NULL-terminated array of C strings for `posix_spawn`, alive for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
